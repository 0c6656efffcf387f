#include "grade.hpp"

#include "cpu_grade.hpp"
#include "debrief.hpp"
#include "device_query.hpp"
#include "exit_code.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "lab_job.hpp"
#include "lab_session.hpp"
#include "own_work.hpp"
#include "report.hpp"
#include "regime_sweep.hpp"
#include "runner.hpp"
#include "source_hash.hpp"
#include "stage_trace.hpp"
#include "symbol_check.hpp"
#include "svg.hpp"
#include "variant_registration.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <random>

namespace roofline {

std::filesystem::path existing_kernel_file(const Workspace& ws, const LabSpec& lab, const VariantSpec& variant,
                                           bool solutions) {
    auto file = ws.kernel_file(lab.id, solutions, variant.file);
    if (!std::filesystem::exists(file)) {
        throw InputError(file, 0, "kernel file missing; restore it (git checkout) or fix `file:` in lab.yaml");
    }
    return file;
}

GradeOutcome build_failure(const std::string& target, const BuildResult& build) {
    GradeOutcome out;
    out.exit_code = kBuildFailed;
    out.text = build.compiler_ran ? fmt::format("{}: the build failed; the compiler said:\n{}\n", target, build.output)
                                  : fmt::format("{}: the build failed before compiling: {}\n", target, build.output);
    out.json = {{"target", target}, {"outcome", outcome_name(Outcome::build_failed)}, {"compiler_output", build.output}};
    return out;
}

// One job for the lab program, up to the shapes (grade.hpp).
protocol::Job lab_job(const LabSpec& lab, const VariantSpec& variant, protocol::JobMode mode, std::uint64_t seed,
                      const std::filesystem::path& result_file, double time_cap_s) {
    const auto& tol = lab.tolerance_for(variant);
    protocol::Job job;
    job.mode = mode;
    job.variant = variant.name;
    job.seed = seed;
    job.atol = tol.atol;
    job.rtol = tol.rtol;
    job.max_rel_l2 = tol.max_rel_l2;
    job.time_cap_s = time_cap_s;
    job.launch_timeout_s = lab.launch_timeout_s;
    job.result_path = result_file.string();
    return job;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

// The variant's verify shapes (those its divisibility allows; `skipped` says which not)
// and, but for a correctness-only run, its timed shape.
protocol::Job variant_job(const LabSpec& lab, const VariantSpec& variant, protocol::JobMode mode, std::uint64_t seed,
                          const std::filesystem::path& result_file, std::string* skipped) {
    auto job = lab_job(lab, variant, mode, seed, result_file, 2);
    for (const auto& shape : lab.verify_shapes_for(variant)) {
        if (auto refusal = lab.shape_refusal(variant, shape)) {
            *skipped += "  note: " + *refusal + "\n";
            continue;
        }
        job.verify_shapes.push_back(shape);
    }
    if (mode == protocol::JobMode::verify) job.verify_shapes.push_back(variant.timed);
    else job.timed_shape = variant.timed;
    return job;
}

// Lab 00's size sweep: the variant timed at n / d for each of the lab's divisors
// (d = 1 is the main run's time), in the timing program; the regime is read off how
// the time scales when the grading is scored.
SweepTimes time_sweep(LabSession& session, const LabSpec& lab, const VariantSpec& variant, std::uint64_t seed,
                      double full_size_median_s, const std::filesystem::path& work_dir) {
    SweepTimes outcome;
    auto& points = outcome.points;
    for (long long divisor : lab.sweep_divisors) {
        Shape shape = variant.timed;
        shape["n"] = std::max<long long>(1, shape["n"] / divisor);
        double median_s = full_size_median_s;
        if (divisor != 1) {
            auto dir = work_dir / fmt::format("sweep-{}", divisor);
            std::filesystem::create_directories(dir);
            auto result = dir / "result.json";
            auto job = lab_job(lab, variant, protocol::JobMode::grade, seed + divisor, result, 1);
            job.timed_shape = shape;
            auto run = interpret(session.run(job, lab.timeout_s), result, variant.name, lab.timeout_s);
            if (run.outcome != Outcome::correct) {
                outcome.failure = run;
                return outcome;
            }
            median_s = run.result["timing"]["variant"]["median_s"].get<double>();
        }
        points.push_back({double(shape["n"]), median_s, lab.work(variant, shape)});
    }
    return outcome;
}

std::uint64_t fresh_seed() {
    std::random_device device;
    return (std::uint64_t(device()) << 32) ^ device();
}


// Every graded variant of the lab on one chart, from the saved results, each
// at its fraction of the roof that binds it (roof_placement.hpp).
void write_lab_svg(const Workspace& ws, const LabSpec& lab, bool solutions, const CeilingChoice& ceiling,
                   const HardwareProfile& datasheet, const std::string& gpu) {
    std::vector<RoofPlacement> marks;
    auto dir = ws.results_dir(lab.id, solutions);
    for (const auto& v : lab.variants) {
        auto file = dir / (v.name + ".json");
        if (!std::filesystem::exists(file)) continue;
        std::ifstream in(file);
        if (auto mark = place_graded(v.name, nlohmann::json::parse(in, nullptr, false))) marks.push_back(*mark);
    }
    std::ofstream(dir / "roofline.svg") << roofline_svg(fmt::format("{} on {}", lab.id, gpu), marks,
                                                        memory_references(ceiling, datasheet));
}

// One check per program and process: `grade --all` asks for every variant of the same objects.
const SymbolCheck& checked_symbols(const std::filesystem::path& manifest_file, const std::vector<std::string>& allow) {
    static std::map<std::string, SymbolCheck> checked;
    std::error_code error;
    auto written = std::filesystem::last_write_time(manifest_file, error);
    auto key = fmt::format("{}|{}|{}", manifest_file.string(), error ? 0 : written.time_since_epoch().count(),
                           fmt::join(allow, ","));
    auto it = checked.find(key);
    if (it == checked.end()) it = checked.emplace(key, check_symbols(load_link_manifest(manifest_file), allow)).first;
    return it->second;
}

struct LinkRefusal {
    std::string outcome;  // forbidden_symbol or forbidden_call
    std::string message;
};

// A symbol that replaces the grader's own taints every variant of the program; a
// forbidden call, only the variants built from the file that makes it.
std::optional<LinkRefusal> link_refusal(const SymbolCheck& check, const VariantSpec& variant) {
    if (!check.error.empty()) return LinkRefusal{"forbidden_symbol", "the symbol check could not run: " + check.error};
    if (!check.forbidden_symbols.empty()) {
        SymbolCheck symbols;
        symbols.forbidden_symbols = check.forbidden_symbols;
        return LinkRefusal{"forbidden_symbol", describe(symbols)};
    }
    SymbolCheck calls;
    auto object_name = variant.file.filename().string() + ".o";
    for (const auto& f : check.forbidden_calls) {
        if (f.object.filename() == object_name) calls.forbidden_calls.push_back(f);
    }
    if (calls.forbidden_calls.empty()) return std::nullopt;
    return LinkRefusal{"forbidden_call", describe(calls)};
}

}  // namespace

bool times_in_own_program(const LabSpec& lab, const VariantSpec& variant, const std::vector<HardwareProfile>& profiles) {
    auto work = lab.work(variant, variant.timed);
    for (const auto& profile : profiles) {
        if (!profile.peak.count(variant.dtype)) continue;  // a GPU without this dtype's unit
        auto point = analyze(work, profile.datasheet_ceiling(variant.dtype), kTypicalLaunchOverheadS);
        if (point.regime == Regime::overhead) return true;
    }
    return profiles.empty();
}

GateResult check_prediction(const PredictionLog& log, const LabSpec& lab, const VariantSpec& variant,
                            const std::string& source_hash, const std::string& log_flag) {
    GateResult gate;
    gate.prediction = log.find_current(lab.id, variant.name, shape_text(variant.timed), source_hash);
    if (gate.prediction) {
        gate.edited = log.edited_after_measurement(*gate.prediction);
        return gate;
    }
    bool stale = false;
    for (const auto& p : log.predictions) stale |= p.lab == lab.id && p.variant == variant.name;
    gate.refusal = fmt::format(
        "no prediction for {}/{} {}. Predict first (time, or --tflops/--gbps), then grade:\n"
        "  roofline predict {}/{} --time-us <microseconds> --regime <compute|memory|overhead> --why \"<one sentence>\"{}",
        lab.id, variant.name,
        stale ? "made against its current source (the kernel changed since your last prediction)"
              : "at shape " + shape_text(variant.timed),
        lab.id, variant.name, log_flag);
    return gate;
}

GradeOutcome grade_variant(const Workspace& ws, const GradeRequest& request) {
    GradeOutcome out;
    std::string target = request.lab + "/" + request.variant;

    // 1. Load.
    trace_stage(target + ": load");
    auto lab = load_lab(ws.lab_yaml(request.lab));
    const auto& variant = lab.variant(request.variant);
    auto kernel_file = existing_kernel_file(ws, lab, variant, request.solutions);
    // A CPU-graded variant (lab 09's layout library): its own program, no GPU, no prediction.
    if (variant.cpu_graded) return grade_cpu_variant(ws, request, lab, variant);

    // 1a. Hardware: machine code for one architecture only (lab 05: sm_100a) runs nowhere else.
    // Refused before the gate and the build: no prediction or build helps on this GPU. Where
    // there is no GPU at all, grading goes on to the usual no-device answer after the build.
    if (variant.requires_cc) {
        if (auto device = first_device(nullptr)) {
            if (auto refusal = hardware_refusal(target, *variant.requires_cc, device->name,
                                                {device->cc_major, device->cc_minor})) {
                out.exit_code = kNeedsOtherHardware;
                out.text = *refusal + "\n";
                out.json = {{"target", target}, {"outcome", outcome_name(Outcome::other_hardware)}, {"message", *refusal}};
                return out;
            }
        }
    }

    // 2. Prediction gate: before anything touches a GPU.
    trace_stage(target + ": prediction gate");
    const Prediction* prediction = nullptr;
    PredictionLog log;
    bool edited = false;
    if (!request.verify_only) {
        log = request.log_read ? *request.log_read : load_log(request.log);
        auto log_flag = request.log == ws.default_log() ? "" : " --log " + request.log.string();
        auto gate = check_prediction(log, lab, variant, hash_file(kernel_file), log_flag);
        // Reference solutions need no prediction; one made with `predict --solutions` is scored.
        if (!gate.prediction && !request.solutions && request.require_prediction) {
            out.exit_code = kNoPrediction;
            out.text = gate.refusal + "\n";
            out.json = {{"target", target}, {"outcome", outcome_name(Outcome::no_prediction)}, {"message", gate.refusal}};
            return out;
        }
        prediction = gate.prediction;
        edited = gate.edited;
    }

    // 3. Build: a compile error is reported even where there is no GPU.
    if (request.build) {
        auto build = build_target(ws.build_dir, ws.lab_target(lab.id, request.solutions));
        if (!build.ok) return build_failure(target, build);
    }

    trace_stage(target + ": symbol check");
    // 3a. Link-time gate: the kernel files replace none of the grader's functions and call
    //     no library to do the work (symbol_check.hpp). Also where there is no GPU.
    const auto& symbols = checked_symbols(link_manifest_file(ws.lab_executable(lab.id, request.solutions)),
                                          lab.allow_calls);
    if (auto refusal = link_refusal(symbols, variant)) {
        out.exit_code = kForbidden;
        out.text = fmt::format("{}  {}: {}\n  (0 points: the timed work must be this kernel file's own; README.md, "
                               "\"The student's own work\")\n", target, refusal->outcome, refusal->message);
        out.json = {{"target", target}, {"outcome", refusal->outcome}, {"message", refusal->message},
                    {"points", {{"total", 0}, {"max", lab.scoring.total()}}}};
        return out;
    }

    // 4. Device, as the lab program sees it: the grader itself starts no CUDA process
    //    (each costs ~0.3 s of driver time, serialized across GPUs; lab_session.hpp).
    //    The --all run's lab program, or one of this variant's own.
    std::unique_ptr<LabSession> own_session;
    LabSession* session = request.session;
    if (!session || session->executable() != ws.lab_executable(lab.id, request.solutions)) {
        own_session = std::make_unique<LabSession>(
            ws.lab_executable(lab.id, request.solutions),
            std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}-program", ::getpid(), variant.name));
        session = own_session.get();
    }
    trace_stage(target + ": device");
    std::string why_no_device;
    bool program_failed = false;
    auto device = session->device(&why_no_device, &program_failed);
    if (!device && program_failed) {
        // It ended before it could say: the submission's own code (a static initializer) failed.
        out.exit_code = kCrashedOrTimedOut;
        out.text = fmt::format("{}: the lab program failed as it started, before any kernel ran: {}\n", target,
                               why_no_device);
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::crashed)}, {"message", "failed at start-up: " + why_no_device}};
        return out;
    }
    if (!device) {
        out.exit_code = kNoDevice;
        out.text = fmt::format("{}: no CUDA device here ({}).{} Run it on a machine with an NVIDIA GPU, or use "
                               "`roofline calc` to work out the floors without one.\n",
                               target, why_no_device, prediction ? " The prediction gate passed." : "");
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::no_device)}, {"message", why_no_device}};
        return out;
    }
    GradeContext context{target, device->name, request.solutions ? "solutions" : "labs", edited};

    // 5-6. Run: verify, measure, verify again, in the lab program (or take that run from the
    //      first pass of `roofline grade`, grade.hpp). Then the same checks and the timed
    //      launches once more, watched, in a lab program that never times after it.
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}", ::getpid(), variant.name);
    std::filesystem::create_directories(work_dir);
    auto result_file = work_dir / "result.json";
    TimedRun timed;
    auto earlier = request.timed_runs ? request.timed_runs->find(variant.name) : TimedRuns::iterator{};
    if (request.timed_runs && !request.timing_only && earlier != request.timed_runs->end()) {
        timed = std::move(earlier->second);  // timed in the first pass of this `grade` (grade.hpp)
    } else {
        timed.seed = request.seed ? *request.seed : fresh_seed();
        auto mode = request.verify_only ? protocol::JobMode::verify : protocol::JobMode::grade;
        auto job = variant_job(lab, variant, mode, timed.seed, result_file, &timed.skipped);
        trace_stage(target + ": timing job");
        auto timing_began = std::chrono::steady_clock::now();
        timed.run = interpret(session->run(job, lab.timeout_s), result_file, variant.name, lab.timeout_s);
        // 6a. Size sweep (lab 00): more timings, in the same program.
        if (timed.run.outcome == Outcome::correct && !request.verify_only && !lab.sweep_divisors.empty()) {
            timed.sweep = time_sweep(*session, lab, variant, timed.seed,
                                     timed.run.result["timing"]["variant"]["median_s"].get<double>(), work_dir);
        }
        timed.seconds = seconds_since(timing_began);
        if (request.timing_only) {
            (*request.timed_runs)[variant.name] = std::move(timed);
            std::filesystem::remove_all(work_dir);
            out.exit_code = kGradedCorrect;
            out.timed_only = true;
            return out;
        }
    }
    const std::uint64_t seed = timed.seed;
    std::string& skipped = timed.skipped;
    LabRun& run = timed.run;
    std::string own_work_note;
    std::optional<ReplayComparison> replay;
    double watch_seconds = 0;
    if (run.outcome == Outcome::correct) {
        // The variant as the kernel file registered it must be the one lab.yaml describes.
        if (auto mismatch = registration_mismatch(run.result, variant, lab)) {
            run.outcome = Outcome::incorrect;
            run.message = fmt::format("{}: {}", variant.name, *mismatch);
        }
    }
    if (run.outcome == Outcome::correct) {
        LabRun watched = run;  // a correctness run is watched itself
        if (!request.verify_only) {
            std::unique_ptr<LabSession> own_watch_session;
            LabSession* watch_session = request.watch_session;
            if (!watch_session || watch_session->executable() != session->executable()) {
                own_watch_session = std::make_unique<LabSession>(
                    session->executable(), std::filesystem::temp_directory_path() /
                                               fmt::format("roofline-{}-{}-watch", ::getpid(), variant.name));
                watch_session = own_watch_session.get();
            }
            auto watch_file = work_dir / "watched.json";
            auto job = variant_job(lab, variant, protocol::JobMode::watch, seed, watch_file, &skipped);
            job.replay_launches = run.result["timing"]["variant"].value("count", 10);
            trace_stage(target + ": watch job");
            auto watch_began = std::chrono::steady_clock::now();
            watched = interpret(watch_session->run(job, lab.timeout_s), watch_file, variant.name, lab.timeout_s);
            watch_seconds = seconds_since(watch_began);
            // Outside the two passes of `roofline grade` (grade.hpp), the watching program ends
            // before anything else is timed: no program times while one watches.
            if (!request.timed_runs) watch_session->end();
        }
        if (watched.outcome != Outcome::correct) {
            watched.message = "while watched (the same checks, re-run to see what the GPU ran): " + watched.message;
            run = watched;
        } else {
            auto own = judge_own_work(watched.result, symbols, lab.allow_calls);
            if (own.outcome == Outcome::correct && !request.verify_only) {
                replay = compare_replay(run.result, watched.result);
                if (replay && replay->refused) own = {Outcome::timing_refused, replay->message, own.note};
            }
            own_work_note = own.note;
            if (own.outcome != Outcome::correct) {
                run.outcome = own.outcome;
                run.message = fmt::format("{}: {}", variant.name, own.message);
            }
        }
    }

    if (run.outcome != Outcome::correct || request.verify_only) std::filesystem::remove_all(work_dir);
    if (run.outcome != Outcome::correct) {
        out.exit_code = exit_code_for(run.outcome);
        out.text = skipped + failure_report(context, run);
        out.json = failure_json(context, run, lab.scoring.total());
        out.json["seed"] = seed;
        out.gradescope = gradescope_json(lab, context, nullptr, &run);
        return out;
    }
    if (request.verify_only) {
        out.exit_code = kGradedCorrect;
        long long checks = run.result["checks"].size();
        out.text = skipped + fmt::format("{}  CORRECT on {}: {} checks on fresh random inputs (seed {}), every element "
                                         "compared, guards intact. Not timed: use `roofline grade` for that.\n",
                                         target, device->name, checks, seed);
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::correct)}, {"seed", seed}, {"checks", run.result["checks"]}};
        return out;
    }

    // 7. Score against this GPU's ceilings.
    trace_stage(target + ": score");
    auto profiles = load_profiles(ws.root / "hardware");
    const HardwareProfile* profile = request.hardware.empty() ? match_device(profiles, device->name)
                                                              : &find_profile(profiles, request.hardware);
    if (!profile) {
        throw InputError(fmt::format("no hardware profile matches '{}'; add one to hardware/ or pass --hardware ID",
                                     device->name));
    }
    std::optional<MeasuredCeilings> measured;
    auto measured_file = ws.measured_ceilings(profile->id);
    std::string ceiling_note;
    if (std::filesystem::exists(measured_file)) {
        measured = load_measured(measured_file);
    } else {
        ceiling_note = fmt::format("  warning: no measured ceilings for {}; scoring the roofline against the datasheet. "
                                   "Run `roofline ceilings` once on this GPU.\n", profile->id);
    }
    auto ceiling = choose_ceiling(*profile, measured ? &*measured : nullptr, variant.dtype);

    // 7a. Size sweep (lab 00): read the regime off how the time scales.
    std::optional<SweepVerdict> sweep_verdict;
    if (timed.sweep) {
        if (timed.sweep->failure) {
            std::filesystem::remove_all(work_dir);
            out.exit_code = exit_code_for(timed.sweep->failure->outcome);
            out.text = failure_report(context, *timed.sweep->failure);
            out.json = failure_json(context, *timed.sweep->failure, lab.scoring.total());
            return out;
        }
        sweep_verdict = classify_sweep(timed.sweep->points, ceiling.ceiling);
    }
    std::filesystem::remove_all(work_dir);

    auto score = score_run(lab, variant, run.result, *profile, ceiling, prediction,
                           sweep_verdict ? std::optional<Regime>(sweep_verdict->regime) : std::nullopt);

    // 8. Record and report.
    trace_stage(target + ": record");
    if (prediction) {
        Measurement m;
        m.prediction_id = prediction->id;
        m.prediction_digest = prediction->digest();
        m.lab = lab.id;
        m.variant = variant.name;
        m.shape = shape_text(variant.timed);
        m.measured_time_s = score.variant.median_s;
        m.measured_regime = score.measured_regime;
        m.correct = score.correct;
        m.fraction = score.fraction;
        m.points = score.total();
        m.max_points = score.max_points;
        m.gpu = device->name;
        m.sm_clock_mhz = score.sm_clock_mhz;
        m.measured_at = utc_now_iso8601();
        append_measurement(request.log, m);
    }
    out.score = score;
    out.exit_code = score.correct ? kGradedCorrect : kGradedIncorrect;
    out.text = skipped + ceiling_note + terminal_report(context, score, run.result);
    if (!own_work_note.empty()) out.text += "  note      " + own_work_note + "\n";
    out.json = score_json(context, score, run.result);
    if (sweep_verdict) {
        std::string rows;
        auto points = nlohmann::json::array();
        for (const auto& p : timed.sweep->points) {
            rows += fmt::format("{}n={} {:.4g} us", rows.empty() ? "" : ", ", static_cast<long long>(p.n), p.time_s * 1e6);
            points.push_back({{"n", static_cast<long long>(p.n)}, {"median_s", p.time_s}});
        }
        out.text += fmt::format("  sweep     {}\n            measured regime: {} ({})\n", rows,
                                regime_name(sweep_verdict->regime), sweep_verdict->reason);
        out.json["sweep"] = {{"points", points},
                             {"scaling_exponent", sweep_verdict->scaling_exponent},
                             {"regime", regime_name(sweep_verdict->regime)},
                             {"reason", sweep_verdict->reason}};
    }
    out.json["seed"] = seed;
    out.json["profile"] = profile->id;
    // Where a grading's wall time went (the batch's cost per submission is their sum).
    out.json["grading_seconds"] = {{"timing", timed.seconds}, {"watch", watch_seconds}};
    if (replay) {
        out.json["watched_replay"] = {{"launches", replay->launches},
                                      {"median_s", replay->watched_median_s},
                                      {"timed_over_watched", replay->timed_median_s / replay->watched_median_s}};
    }
    if (!own_work_note.empty()) out.json["note"] = own_work_note;
    out.gradescope = gradescope_json(lab, context, &score, nullptr);
    auto results = ws.results_dir(lab.id, request.solutions);
    trace_stage(target + ": results and the lab's SVG");
    write_json_file(results / (variant.name + ".json"), out.json);
    write_lab_svg(ws, lab, request.solutions, ceiling, *profile, device->name);

    // The debrief, now that the log holds this measurement (a debrief file missing is no
    // reason to fail a grading that succeeded: the report says where it should be).
    if (score.correct && (prediction || request.solutions)) {
        try {
            auto gate = open_debrief(ws, load_log(request.log), lab.id, variant.name, request.solutions, "");
            if (gate.text) {
                out.debrief = *gate.text;
                out.json["debrief"] = debrief_file(ws, lab.id, variant.name).string();
            }
        } catch (const InputError& e) {
            out.text += fmt::format("  note      {}\n", e.what());
        }
    }
    return out;
}

}  // namespace roofline

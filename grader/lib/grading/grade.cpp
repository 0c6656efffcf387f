#include "grade.hpp"

#include "build_progress.hpp"
#include "byte_calibration.hpp"
#include "cpu_grade.hpp"
#include "debrief.hpp"
#include "device_query.hpp"
#include "diagnosis_score.hpp"
#include "exit_code.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "job_from_spec.hpp"
#include "kernel_file.hpp"
#include "lab_job.hpp"
#include "lab_session.hpp"
#include "output_file.hpp"
#include "gpu_neighbours.hpp"
#include "own_work.hpp"
#include "replay_retry.hpp"
#include "report.hpp"
#include "regime_sweep.hpp"
#include "lab_run.hpp"
#include "source_hash.hpp"
#include "stage_trace.hpp"
#include "symbol_check.hpp"
#include "svg.hpp"
#include "variant_registration.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <thread>

namespace roofline {

namespace {

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
            auto run = interpret(session.run(job, lab.timeout_s), job, lab.timeout_s);
            if (run.outcome != Outcome::correct) {
                outcome.failure = run;
                return outcome;
            }
            median_s = run.result.timing->variant.median_s;
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
    write_output_file(dir / "roofline.svg",
                      roofline_svg(fmt::format("{} on {}", lab.id, gpu), marks, memory_references(ceiling, datasheet)),
                      "the lab's roofline chart", OutputFolder::create);
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
    Outcome outcome;  // forbidden_symbol or forbidden_call (build_failed: objects not built)
    std::string message;
};

// A symbol that replaces the grader's own taints every variant of the program; a
// forbidden call, only the variants built from the file that makes it.
std::optional<LinkRefusal> link_refusal(const SymbolCheck& check, const VariantSpec& variant) {
    // Objects that are not there were never built (a failed build, or --no-build before any
    // build): the build's outcome, not a symbol's.
    if (!check.missing_objects.empty())
        return LinkRefusal{Outcome::build_failed, check.error + "; build the lab (drop --no-build) and grade again"};
    if (!check.error.empty()) return LinkRefusal{Outcome::forbidden_symbol, "the symbol check could not run: " + check.error};
    if (!check.forbidden_symbols.empty()) {
        SymbolCheck symbols;
        symbols.forbidden_symbols = check.forbidden_symbols;
        return LinkRefusal{Outcome::forbidden_symbol, describe(symbols)};
    }
    SymbolCheck calls;
    auto object_name = variant.file.filename().string() + ".o";
    for (const auto& f : check.forbidden_calls) {
        if (f.object.filename() == object_name) calls.forbidden_calls.push_back(f);
    }
    if (calls.forbidden_calls.empty()) return std::nullopt;
    return LinkRefusal{Outcome::forbidden_call, describe(calls)};
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

namespace {

// What the steps of one variant's grading share.
struct VariantGrading {
    const Workspace& ws;
    const GradeRequest& request;
    const LabSpec& lab;
    const VariantSpec& variant;
    std::string target;  // LAB/VARIANT
};

// A grading that ends before anything is scored: its outcome, one message, the report's text.
GradeOutcome ended(const std::string& target, Outcome outcome, const std::string& message, std::string text) {
    GradeOutcome out;
    out.exit_code = exit_code_for(outcome);
    out.text = std::move(text);
    out.json = {{"target", target}, {"outcome", outcome_name(outcome)}, {"message", message}};
    return out;
}

// 1a. Machine code for one architecture only (lab 07: sm_100a) runs nowhere else. Refused
// before the gate and the build: no prediction or build helps on this GPU. Where there is
// no GPU at all, grading goes on to the usual no-device answer after the build.
std::optional<GradeOutcome> refuse_other_hardware(const VariantGrading& g) {
    if (!g.variant.requires_cc) return std::nullopt;
    auto device = first_device(nullptr);
    if (!device) return std::nullopt;
    auto refusal = hardware_refusal(g.target, *g.variant.requires_cc, device->name, {device->cc_major, device->cc_minor});
    if (!refusal) return std::nullopt;
    return ended(g.target, Outcome::other_hardware, *refusal, *refusal + "\n");
}

struct GatePassed {
    const Prediction* prediction = nullptr;  // null: graded without one (solutions, batch)
    bool edited = false;
};

// 2. The prediction gate, before anything touches a GPU. Reference solutions need no
// prediction (one made with `predict --solutions` is scored); `batch` lifts the gate.
std::optional<GradeOutcome> prediction_gate(const VariantGrading& g, const PredictionLog& log,
                                            const std::filesystem::path& kernel_file, GatePassed& passed) {
    auto log_flag = g.request.log == g.ws.default_log() ? "" : " --log " + g.request.log.string();
    auto gate = check_prediction(log, g.lab, g.variant, hash_file(kernel_file), log_flag);
    if (!gate.prediction && !g.request.solutions && g.request.require_prediction) {
        return ended(g.target, Outcome::no_prediction, gate.refusal, gate.refusal + "\n");
    }
    passed = {gate.prediction, gate.edited};
    return std::nullopt;
}

// 3a. The link-time gate: the kernel files replace none of the grader's functions and call no
// library to do the work (symbol_check.hpp). Also where there is no GPU.
std::optional<GradeOutcome> link_gate(const VariantGrading& g, const SymbolCheck& symbols) {
    auto refusal = link_refusal(symbols, g.variant);
    if (!refusal) return std::nullopt;
    const std::string why = refusal->outcome == Outcome::build_failed
                                ? ""
                                : "\n  (0 points: the timed work must be this kernel file's own; README.md, "
                                  "\"The student's own work\")";
    auto out = ended(g.target, refusal->outcome, refusal->message,
                     fmt::format("{}  {}: {}{}\n", g.target, outcome_name(refusal->outcome), refusal->message, why));
    out.json["points"] = {{"total", 0}, {"max", g.lab.scoring.total()}};
    return out;
}

// 4. The device, as the lab program sees it: the grader itself starts no CUDA process (each
// costs ~0.3 s of driver time, serialized across GPUs; lab_session.hpp). The program the
// variants share, or one of this variant's own.
struct OpenProgram {
    std::unique_ptr<LabSession> own;
    LabSession* session = nullptr;
    DeviceInfo device;
};

std::optional<GradeOutcome> open_program(const VariantGrading& g, bool predicted, OpenProgram& program) {
    auto executable = g.ws.lab_executable(g.lab.id, g.request.solutions);
    program.session = g.request.session;
    if (!program.session || program.session->executable() != executable) {
        program.own = std::make_unique<LabSession>(executable, std::filesystem::temp_directory_path() /
                                                                   fmt::format("roofline-{}-{}-program", ::getpid(),
                                                                               g.variant.name));
        program.session = program.own.get();
    }
    std::string why_no_device;
    bool program_failed = false;
    auto device = program.session->device(&why_no_device, &program_failed);
    if (!device && program_failed) {
        // It ended before it could say: the submission's own code (a static initializer) failed.
        return ended(g.target, Outcome::crashed, "failed at start-up: " + why_no_device,
                     fmt::format("{}: the lab program failed as it started, before any kernel ran: {}\n", g.target,
                                 why_no_device));
    }
    if (!device) {
        // The driver's absence in plain words, not CUDA's "driver version is insufficient".
        if (auto missing = missing_gpu_driver()) why_no_device = *missing;
        return ended(g.target, Outcome::no_device, why_no_device,
                     fmt::format("{}: no CUDA device here ({}).{} Run it on a machine with an NVIDIA GPU, or use "
                                 "`roofline calc` to work out the floors without one.\n",
                                 g.target, why_no_device, predicted ? " The prediction gate passed." : ""));
    }
    program.device = *device;
    return std::nullopt;
}

// 5-6. Verify, measure, verify again, in the lab program, with lab 00's size sweep; or the
// run the first pass of `roofline grade` already made (grade.hpp, "Two passes").
TimedRun timed_run(const VariantGrading& g, LabSession& session, const std::filesystem::path& work_dir) {
    const auto& request = g.request;
    auto earlier = request.timed_runs ? request.timed_runs->find(g.variant.name) : TimedRuns::iterator{};
    if (request.timed_runs && !request.timing_only && earlier != request.timed_runs->end()) {
        return std::move(earlier->second);
    }
    TimedRun timed;
    timed.seed = request.seed ? *request.seed : fresh_seed();
    auto mode = request.verify_only ? protocol::JobMode::verify : protocol::JobMode::grade;
    auto result_file = work_dir / "result.json";
    auto job = variant_job(g.lab, g.variant, mode, timed.seed, result_file, &timed.skipped);
    // Who else computed on the GPU, asked just before and just after the timing (outside its
    // wall time): a note when anyone did, never a change of score (gpu_neighbours.hpp).
    std::vector<ComputeAppsListing> listings;
    auto list_gpu = [&] {
        if (request.verify_only) return;
        if (auto listing = list_compute_apps()) listings.push_back(std::move(*listing));
    };
    list_gpu();
    trace_stage(g.target + ": timing job");
    auto began = std::chrono::steady_clock::now();
    timed.run = interpret(session.run(job, g.lab.timeout_s), job, g.lab.timeout_s);
    if (timed.run.outcome == Outcome::correct && !request.verify_only && !g.lab.sweep_divisors.empty()) {
        timed.sweep = time_sweep(session, g.lab, g.variant, timed.seed,
                                 timed.run.result.timing->variant.median_s, work_dir);
    }
    timed.seconds = seconds_since(began);
    list_gpu();
    timed.gpu_neighbours = gpu_neighbours(listings);
    return timed;
}

// What the watch found, beside the verdict it may have changed.
struct Judgement {
    std::string own_work_note;
    std::optional<ReplayComparison> replay;        // the comparison that decided (the retry's, after one)
    std::optional<ReplayComparison> first_replay;  // after a retry: the first watch's, too slow
    std::string replay_note;                       // a retry's second replay within the limit: said
    double watch_seconds = 0;
};

// 6b. The registration against lab.yaml; then the same checks and the timed launches once
// more, watched, in a program that never times after it, and the judgement of whose work
// the GPU did (own_work.hpp). A failure here becomes the run's outcome. A replay too slow
// against the timing is watched once more before it is refused (replay_retry.hpp).
Judgement watch_and_judge(const VariantGrading& g, LabSession& session, const SymbolCheck& symbols, TimedRun& timed,
                          const std::filesystem::path& work_dir) {
    Judgement judgement;
    LabRun& run = timed.run;
    if (run.outcome != Outcome::correct) return judgement;
    if (auto mismatch = registration_mismatch(*run.result.registration, g.variant, g.lab)) {
        run.outcome = Outcome::incorrect;
        run.message = fmt::format("{}: {}", g.variant.name, *mismatch);
        return judgement;
    }
    std::unique_ptr<LabSession> own_watch_session;
    LabSession* watch_session = nullptr;
    std::optional<protocol::Job> job;
    if (!g.request.verify_only) {
        watch_session = g.request.watch_session;
        if (!watch_session || watch_session->executable() != session.executable()) {
            own_watch_session = std::make_unique<LabSession>(
                session.executable(),
                std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}-watch", ::getpid(), g.variant.name),
                /*judged=*/false);
            watch_session = own_watch_session.get();
        }
        auto watch_file = work_dir / "watched.json";
        job = variant_job(g.lab, g.variant, protocol::JobMode::watch, timed.seed, watch_file, &timed.skipped);
        job->replay_launches = run.result.timing->variant.count * std::max(1, run.result.timing->batch_launches);
        job->replay_batch_launches = std::max(1, run.result.timing->batch_launches);
    }
    // Outside the two passes of `roofline grade` (grade.hpp), the watching program ends
    // before anything else is timed: no program times while one watches.
    struct EndWatch {
        LabSession* session;
        ~EndWatch() {
            if (session) session->end();
        }
    } end_watch{g.request.timed_runs ? nullptr : watch_session};
    std::vector<std::optional<ReplayComparison>> comparisons;
    std::vector<ComputeAppsListing> listings;  // nvidia-smi's, each time a replay was too slow
    std::optional<FreeGpuWait> free_gpu_wait;  // before the second watch, where others were on the GPU
    for (int watches = 1;; ++watches) {
        LabRun watched = run;  // a correctness run is watched itself
        if (job) {
            trace_stage(g.target + (watches == 1 ? ": watch job" : ": watch job, again"));
            auto began = std::chrono::steady_clock::now();
            watched = interpret(watch_session->run(*job, g.lab.timeout_s), *job, g.lab.timeout_s);
            judgement.watch_seconds += seconds_since(began);
        }
        if (watched.outcome != Outcome::correct) {
            watched.message = std::string(watches == 1 ? "while watched" : "while watched again") +
                              " (the same checks, re-run to see what the GPU ran): " + watched.message;
            run = watched;
            return judgement;
        }
        auto own = judge_own_work(watched.result, symbols, g.lab.allow_calls);
        judgement.own_work_note = own.note;
        if (own.outcome == Outcome::correct && job) {
            comparisons.push_back(compare_replay(run.result, watched.result));
            const auto& latest = comparisons.back();
            if (latest && latest->refused) {
                if (auto listing = list_compute_apps()) listings.push_back(std::move(*listing));
            }
            const auto neighbours = gpu_neighbours(listings);
            auto decision = decide_replay(comparisons, gpu_processes_text(neighbours), free_gpu_wait);
            if (decision.step == ReplayDecision::Step::watch_again) {
                // Others on the GPU slowed the first replay, perhaps: let them leave first.
                if (!neighbours.empty()) {
                    free_gpu_wait = wait_for_free_gpu(list_compute_apps, [](double s) {
                        std::this_thread::sleep_for(std::chrono::duration<double>(s));
                    });
                }
                continue;
            }
            judgement.replay = latest;
            if (comparisons.size() > 1) judgement.first_replay = comparisons.front();
            judgement.replay_note = decision.note;
            if (decision.step == ReplayDecision::Step::refused) own = {Outcome::timing_refused, decision.message, own.note};
        }
        if (own.outcome != Outcome::correct) {
            run.outcome = own.outcome;
            run.message = fmt::format("{}: {}", g.variant.name, own.message);
        }
        return judgement;
    }
}

// 7. The ceilings this GPU is scored against: measured where `roofline ceilings` ran here,
// else the datasheet's, with a note saying so.
struct Ceilings {
    std::vector<HardwareProfile> loaded;  // when the lab's context had none (`profile` may point here)
    const HardwareProfile* profile = nullptr;
    CeilingChoice choice;
    std::string note;
};

Ceilings ceilings_for(const VariantGrading& g, const std::vector<HardwareProfile>& shared_profiles,
                      const DeviceInfo& device) {
    Ceilings c;
    // None loaded: load_profiles names what is missing.
    if (shared_profiles.empty()) c.loaded = load_profiles(g.ws.root / "hardware");
    const auto& profiles = shared_profiles.empty() ? c.loaded : shared_profiles;
    c.profile = g.request.hardware.empty() ? match_device(profiles, device.name) : &find_profile(profiles, g.request.hardware);
    if (!c.profile) {
        throw InputError(fmt::format("no hardware profile matches '{}'; add one to hardware/ or pass --hardware ID",
                                     device.name));
    }
    std::optional<MeasuredCeilings> measured;
    auto measured_file = g.ws.measured_ceilings(c.profile->id);
    if (std::filesystem::exists(measured_file)) {
        measured = load_measured(measured_file);
    } else {
        c.note = fmt::format("  warning: no measured ceilings for {}; scoring the roofline against the datasheet. "
                             "Run `roofline ceilings` once on this GPU.\n", c.profile->id);
    }
    c.choice = choose_ceiling(*c.profile, measured ? &*measured : nullptr, g.variant.dtype);
    return c;
}

// 8. The measurement appended to the prediction log it answers.
void record_measurement(const VariantGrading& g, const Prediction& prediction, const Score& score,
                        const std::string& gpu) {
    Measurement m;
    m.prediction_id = prediction.id;
    m.prediction_digest = prediction.digest();
    m.lab = g.lab.id;
    m.variant = g.variant.name;
    m.shape = shape_text(g.variant.timed);
    m.measured_time_s = score.variant.median_s;
    m.measured_regime = score.measured_regime;
    m.correct = score.correct;
    m.fraction = score.fraction;
    m.points = score.total();
    m.max_points = score.max_points;
    m.gpu = gpu;
    m.sm_clock_mhz = score.sm_clock_mhz;
    m.measured_at = utc_now_iso8601();
    append_measurement(g.request.log, m);
}

// The timing shared the GPU with other processes: said, the score unchanged.
std::string shared_gpu_note(const std::vector<GpuProcess>& neighbours) {
    if (neighbours.empty()) return {};
    return fmt::format("{} used the GPU while this was timed: {}; the time may be slower than the GPU's own",
                       neighbours.size() == 1 ? "another process" : "other processes", gpu_processes_text(neighbours));
}

// Lab 00's sweep, as the report shows it: a line of text and its JSON.
void report_sweep(const SweepTimes& sweep, const SweepVerdict& verdict, GradeOutcome& out) {
    std::string rows;
    auto points = nlohmann::json::array();
    for (const auto& p : sweep.points) {
        rows += fmt::format("{}n={} {:.4g} us", rows.empty() ? "" : ", ", static_cast<long long>(p.n), p.time_s * 1e6);
        points.push_back({{"n", static_cast<long long>(p.n)}, {"median_s", p.time_s}});
    }
    out.text += fmt::format("  sweep     {}\n            measured regime: {} ({})\n", rows, regime_name(verdict.regime),
                            verdict.reason);
    out.json["sweep"] = {{"points", points},
                         {"scaling_exponent", verdict.scaling_exponent},
                         {"regime", regime_name(verdict.regime)},
                         {"reason", verdict.reason}};
}

// The variant's debrief, once the log holds a correct measurement of it (a debrief file
// missing is no reason to fail a grading that succeeded: the report says where it should be).
void open_debrief_after(const VariantGrading& g, GradeOutcome& out) {
    try {
        auto gate = open_debrief(g.ws, load_log(g.request.log), g.lab.id, g.variant.name, g.request.solutions, "");
        if (gate.text) {
            out.debrief = *gate.text;
            out.json["debrief"] = debrief_file(g.ws, g.lab.id, g.variant.name).string();
        }
    } catch (const InputError& e) {
        out.text += fmt::format("  note      {}\n", e.what());
    }
}

}  // namespace

GradeOutcome grade_variant(const Workspace& ws, const GradeRequest& request) {
    std::string target = request.lab + "/" + request.variant;

    // 1. Load: lab.yaml once per `--all` (the shared context), or here.
    trace_stage(target + ": load");
    std::optional<LabContext> own_context;
    const LabContext& shared = request.context ? *request.context : own_context.emplace(load_lab_context(ws, request.lab));
    const auto& lab = shared.lab;
    const auto& variant = lab.variant(request.variant);
    auto kernel_file = existing_kernel_file(ws, lab, variant, request.solutions);
    // A CPU-graded variant (lab 05's layout library): its own program, no GPU, no prediction.
    if (variant.cpu_graded) return grade_cpu_variant(ws, request, lab, variant);
    const VariantGrading g{ws, request, lab, variant, target};
    if (auto refused = refuse_other_hardware(g)) return *refused;

    // 2. The prediction gate.
    trace_stage(target + ": prediction gate");
    std::optional<PredictionLog> own_log;
    GatePassed gate;
    const ProfileEntry* profiled = nullptr;  // the prediction's first profile, for its byte points
    std::optional<DiagnosisScore> diagnosis;  // lab 02: the diagnosis checked against the profiles' counters
    if (!request.verify_only) {
        const auto& log = request.log_read ? *request.log_read : own_log.emplace(load_log(request.log));
        if (auto refused = prediction_gate(g, log, kernel_file, gate)) return *refused;
        if (gate.prediction) profiled = first_profile_of(log, *gate.prediction);
        if (gate.prediction && lab.scoring.diagnosis > 0) {
            diagnosis = score_diagnosis(log, lab.id, variant.name, gate.prediction->source_hash, lab.scoring.diagnosis);
        }
    }

    // 3. Build: a compile error is reported even where there is no GPU.
    if (request.build) {
        auto build = build_with_progress(ws.build_dir, ws.lab_target(lab.id, request.solutions), true);
        if (!build.ok) return build_failure(target, build);
    }
    trace_stage(target + ": symbol check");
    const auto& symbols = checked_symbols(link_manifest_file(ws.lab_executable(lab.id, request.solutions)),
                                          lab.allow_calls);
    if (auto refused = link_gate(g, symbols)) return *refused;

    // 4. The device.
    trace_stage(target + ": device");
    OpenProgram program;
    if (auto refused = open_program(g, gate.prediction != nullptr, program)) return *refused;
    GradeContext context{target, program.device.name, request.solutions ? "solutions" : "labs", gate.edited};

    // 5-6. Run and watch.
    auto work_dir = std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}", ::getpid(), variant.name);
    std::filesystem::create_directories(work_dir);
    struct RemoveWorkDir {
        std::filesystem::path dir;
        ~RemoveWorkDir() {
            std::error_code ignored;
            std::filesystem::remove_all(dir, ignored);
        }
    } remove_work_dir{work_dir};
    TimedRun timed = timed_run(g, *program.session, work_dir);
    if (request.timing_only) {
        (*request.timed_runs)[variant.name] = std::move(timed);
        GradeOutcome out;
        out.exit_code = kGradedCorrect;
        out.timed_only = true;
        return out;
    }
    auto judgement = watch_and_judge(g, *program.session, symbols, timed, work_dir);
    const LabRun& run = timed.run;
    GradeOutcome out;
    if (run.outcome != Outcome::correct) {
        out.exit_code = exit_code_for(run.outcome);
        out.text = timed.skipped + failure_report(context, run);
        out.json = failure_json(context, run, lab.scoring.total());
        out.json["seed"] = timed.seed;
        out.gradescope = gradescope_json(lab, context, nullptr, &run);
        return out;
    }
    if (request.verify_only) {
        out.exit_code = kGradedCorrect;
        auto checks = run.result.checks.size();
        out.text = timed.skipped + fmt::format("{}  CORRECT on {}: {} checks on fresh random inputs (seed {}), every "
                                               "element compared, guards intact. Not timed: use `roofline grade` for "
                                               "that.\n",
                                               target, program.device.name, checks, timed.seed);
        out.json = {{"target", target}, {"outcome", outcome_name(Outcome::correct)}, {"seed", timed.seed},
                    {"checks", protocol::checks_json(run.result)}};
        return out;
    }

    // 7. Score against this GPU's ceilings; lab 00's sweep gives the measured regime.
    trace_stage(target + ": score");
    auto ceilings = ceilings_for(g, shared.profiles, program.device);
    std::optional<SweepVerdict> sweep_verdict;
    if (timed.sweep) {
        if (timed.sweep->failure) {
            out.exit_code = exit_code_for(timed.sweep->failure->outcome);
            out.text = failure_report(context, *timed.sweep->failure);
            out.json = failure_json(context, *timed.sweep->failure, lab.scoring.total());
            return out;
        }
        sweep_verdict = classify_sweep(timed.sweep->points, ceilings.choice.ceiling);
    }
    auto score = score_run(lab, variant, run.result, *ceilings.profile, ceilings.choice, gate.prediction,
                           sweep_verdict ? std::optional<Regime>(sweep_verdict->regime) : std::nullopt, profiled);
    if (diagnosis && score.correct) {
        score.diagnosis = diagnosis;
        score.diagnosis_points = diagnosis->points;
    }

    // 8. Record and report.
    trace_stage(target + ": record");
    if (gate.prediction) record_measurement(g, *gate.prediction, score, program.device.name);
    out.score = score;
    out.exit_code = score.correct ? kGradedCorrect : kGradedIncorrect;
    out.text = timed.skipped + ceilings.note + terminal_report(context, score, run.result);
    if (!judgement.own_work_note.empty()) out.text += "  note      " + judgement.own_work_note + "\n";
    if (!judgement.replay_note.empty()) out.text += "  note      " + judgement.replay_note + "\n";
    auto shared_gpu = shared_gpu_note(timed.gpu_neighbours);
    if (!shared_gpu.empty()) out.text += "  note      " + shared_gpu + "\n";
    out.json = score_json(context, score, run.result);
    if (sweep_verdict) report_sweep(*timed.sweep, *sweep_verdict, out);
    out.json["seed"] = timed.seed;
    out.json["profile"] = ceilings.profile->id;
    // Where a grading's wall time went (the batch's cost per submission is their sum).
    out.json["grading_seconds"] = {{"timing", timed.seconds}, {"watch", judgement.watch_seconds}};
    if (judgement.replay) {
        const auto& replay = *judgement.replay;
        out.json["watched_replay"] = {{"launches", replay.launches},
                                      {"median_s", replay.watched_median_s},
                                      {"timed_over_watched", replay.timed_median_s / replay.watched_median_s}};
        if (judgement.first_replay) {
            // Watched twice: the first replay was too slow, the second (above) decided.
            const auto& first = *judgement.first_replay;
            out.json["watched_replay"]["first"] = {{"median_s", first.watched_median_s},
                                                   {"timed_over_watched", first.timed_median_s / first.watched_median_s}};
            out.json["watched_replay"]["note"] = judgement.replay_note;
        }
    }
    if (!shared_gpu.empty()) {
        auto processes = nlohmann::json::array();
        for (const auto& p : timed.gpu_neighbours) {
            processes.push_back({{"pid", p.pid}, {"name", p.name}});
            if (p.used_mib) processes.back()["used_mib"] = *p.used_mib;
        }
        out.json["shared_gpu"] = {{"note", shared_gpu}, {"processes", processes}};
    }
    if (!judgement.own_work_note.empty()) out.json["note"] = judgement.own_work_note;
    out.gradescope = gradescope_json(lab, context, &score, nullptr);
    add_shared_gpu_note(out.gradescope, out.json);  // the timing's neighbours, unnamed (report.hpp)
    trace_stage(target + ": results and the lab's SVG");
    write_json_file(ws.results_dir(lab.id, request.solutions) / (variant.name + ".json"), out.json);
    write_lab_svg(ws, lab, request.solutions, ceilings.choice, *ceilings.profile, program.device.name);
    if (score.correct && (gate.prediction || request.solutions)) open_debrief_after(g, out);
    return out;
}

LabContext load_lab_context(const Workspace& ws, const std::string& lab_id) {
    LabContext context{load_lab(ws.lab_yaml(lab_id)), {}};
    // Without hardware/, grading still gets as far as its gates; scoring then says what is missing.
    if (std::filesystem::is_directory(ws.root / "hardware")) context.profiles = load_profiles(ws.root / "hardware");
    return context;
}

namespace {

// The exit code of a lab's grading: the worst of its variants' (0 is the best; a higher code a worse end).
int worst(int a, int b) { return a == 0 ? b : (b == 0 ? a : std::max(a, b)); }

bool stops_the_rest(int code) { return code == kNoDevice || code == kBuildFailed; }  // the rest fail alike
bool lab_program_built(int code) { return code != kBuildFailed && code != kNeedsOtherHardware; }

}  // namespace

LabGrade grade_lab(const Workspace& ws, const LabGradeRequest& request,
                   const std::function<void(const GradedVariant&)>& on_graded) {
    const auto lab_context = load_lab_context(ws, request.lab);
    std::vector<std::pair<std::string, std::string>> targets;
    if (request.variants.empty()) {
        for (const auto& v : lab_context.lab.variants) targets.emplace_back(lab_context.lab.id, v.name);
    } else {
        for (const auto& v : request.variants) targets.emplace_back(request.lab, v);
    }
    if (targets.empty()) throw InputError(request.lab + " has no variants to grade");
    const auto& lab_id = targets.front().first;
    const bool verify_only = request.shared.verify_only;
    // The prediction log, read before the lab program starts: nothing its code writes later counts.
    std::optional<PredictionLog> log_read;
    if (!verify_only) log_read = load_log(request.shared.log);
    // The lab program the variants share: it times them, then (never timing again) watches
    // them all.
    LabSession session(ws.lab_executable(lab_id, request.shared.solutions),
                       std::filesystem::temp_directory_path() / fmt::format("roofline-{}-{}", ::getpid(), lab_id));
    bool built = false;
    // What every variant's grading shares: the lab program, the log as first read, one build.
    auto request_for = [&](const std::string& lab, const std::string& variant) {
        auto r = request.shared;
        r.lab = lab;
        r.variant = variant;
        r.context = &lab_context;
        r.session = &session;
        if (log_read) r.log_read = &*log_read;
        r.build = r.build && !built;  // one build serves every variant of the lab
        return r;
    };
    // First pass: every variant timed, the runs kept for the second.
    TimedRuns timed_runs;
    if (!verify_only) {
        const auto& spec = lab_context.lab;
        std::vector<std::pair<std::string, std::string>> alone, shared;
        for (const auto& target : targets) {
            const auto& variant = spec.variant(target.second);
            if (variant.cpu_graded) continue;  // graded by its own CPU program, never timed
            (times_in_own_program(spec, variant, lab_context.profiles) ? alone : shared).push_back(target);
        }
        LabSession own_program(ws.lab_executable(lab_id, request.shared.solutions),
                               std::filesystem::temp_directory_path() /
                                   fmt::format("roofline-{}-{}-alone", ::getpid(), lab_id));
        bool stopped = false;
        auto time_each = [&](const std::vector<std::pair<std::string, std::string>>& list, LabSession* program) {
            for (const auto& [lab, variant] : list) {
                if (stopped) return;
                auto r = request_for(lab, variant);
                r.session = program;
                r.timing_only = true;
                r.timed_runs = &timed_runs;
                auto outcome = grade_variant(ws, r);
                built = built || lab_program_built(outcome.exit_code);
                stopped = stops_the_rest(outcome.exit_code);  // the second pass says so
                if (program == &own_program) own_program.end();
            }
        };
        time_each(alone, &own_program);
        time_each(shared, &session);
    }
    // Second pass: each variant graded from its timing (or, for `run`, checked).
    LabGrade result;
    for (const auto& [lab, variant] : targets) {
        auto r = request_for(lab, variant);
        r.watch_session = &session;
        if (!verify_only) r.timed_runs = &timed_runs;
        auto outcome = grade_variant(ws, r);
        // A CPU-graded variant (lab 05) builds its own program, not the lab program.
        bool on_cpu = outcome.json.is_object() && outcome.json.value("graded_on", "") == "cpu";
        if (!on_cpu) built = built || lab_program_built(outcome.exit_code);
        result.exit_code = worst(result.exit_code, outcome.exit_code);
        bool stop = !on_cpu && stops_the_rest(outcome.exit_code);
        result.graded.push_back({lab, variant, std::move(outcome)});
        if (on_graded) on_graded(result.graded.back());
        if (stop) break;
    }
    return result;
}

}  // namespace roofline

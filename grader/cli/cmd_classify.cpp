// roofline classify: the regime classifier practice (no GPU needed).
//   roofline classify                          print the questions of the bank
//   roofline classify --write-template FILE    an answers file to fill in
//   roofline classify --check FILE [--json]    grade the answers
//   roofline classify --generate 10 --seed 42  the same with generated questions
// The expected answers are computed from the roofline (lib/practice/classify.cpp), never
// typed into the bank.
#include "classify.hpp"
#include "command.hpp"
#include "output_file.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "number_flags.hpp"
#include "units.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <limits>
#include <optional>

namespace roofline::cli {

namespace {

struct ClassifyOptions {
    std::string check;
    std::string bank;
    std::string write_template;
    std::optional<int> generate;
    std::optional<std::uint64_t> seed;
    bool json = false;
    bool force = false;
    bool reveal = false;
};

// The launch overhead per profile: measured by `roofline ceilings` when its file exists
// (ROOT/.roofline/ceilings/<id>.yaml), else 5 us (back-to-back empty launches on the H200:
// results/README.md, "Ceilings").
std::map<std::string, double> launch_overheads(const Context& context, const std::vector<HardwareProfile>& profiles) {
    std::map<std::string, double> out;
    for (const auto& p : profiles) {
        auto file = context.root() / ".roofline" / "ceilings" / (p.id + ".yaml");
        double overhead = 5e-6;
        if (std::filesystem::exists(file)) {
            auto measured = load_measured(file);
            if (measured.launch_us > 0) overhead = measured.launch_us * 1e-6;
        }
        out[p.id] = overhead;
    }
    return out;
}

void print_questions(const std::vector<classify::Question>& questions, const std::vector<HardwareProfile>& profiles,
                     const std::map<std::string, double>& overheads, const std::string& source, bool json) {
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& q : questions) {
            const auto& p = find_profile(profiles, q.gpu);
            list.push_back({{"id", q.id},
                            {"gpu", q.gpu},
                            {"type", classify::question_type_name(q.type)},
                            {"difficulty", q.difficulty},
                            {"lesson", q.lesson},
                            {"kind", classify::op_kind_name(q.op.kind)},
                            {"launches", q.launches},
                            {"prompt", classify::prompt_text(q, p, overheads.at(p.id))}});
        }
        fmt::print("{}\n", nlohmann::json{{"source", source}, {"questions", list}}.dump(2));
        return;
    }
    fmt::print("Practice: {} question(s) from {}, easiest first.\n", questions.size(), source);
    fmt::print("Each question says what to answer with; most ask for a regime and a number.\n\n");
    fmt::print("{}\n", classify::counting_rules());
    for (const auto& q : questions) {
        const auto& p = find_profile(profiles, q.gpu);
        fmt::print("{}\n", classify::prompt_text(q, p, overheads.at(p.id)));
    }
    fmt::print("Answer in a YAML file (roofline classify --write-template answers.yaml makes one), then\n"
               "roofline classify --check answers.yaml (add the same --bank/--generate/--seed you used here).\n");
}

void print_report(const classify::Report& report, const std::string& answers_file, bool json) {
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& g : report.grades) {
            const auto& q = *g.question;
            bool attempted = g.answer && g.answer->attempted();
            nlohmann::json entry = {{"id", q.id},
                                    {"gpu", q.gpu},
                                    {"type", classify::question_type_name(q.type)},
                                    {"expected", nullptr},
                                    {"answer", nullptr},
                                    {"regime_correct", g.regime_correct},
                                    {"time_ratio", nullptr},
                                    {"points", g.points},
                                    {"max_points", g.max_points},
                                    {"working", nullptr}};
            if (g.answer) {
                const auto& a = *g.answer;
                nlohmann::json answer = nlohmann::json::object();
                auto put = [&](const char* key, const auto& value) {
                    answer[key] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
                };
                for (const auto& field : classify::answer_fields(q.type)) {
                    if (field == "regime") {
                        answer["regime"] = a.regime ? nlohmann::json(regime_name(*a.regime)) : nlohmann::json(nullptr);
                    } else if (field == "helps") {
                        if (a.helps) {
                            nlohmann::json names = nlohmann::json::array();
                            for (auto l : *a.helps) names.push_back(classify::lever_name(l));
                            answer["helps"] = names;
                        } else {
                            answer["helps"] = nullptr;
                        }
                    } else if (field == "time_us") put("time_us", a.time_us);
                    else if (field == "fraction") put("fraction", a.fraction);
                    else if (field == "kib_per_sm") put("kib_per_sm", a.kib_per_sm);
                    else if (field == "stages") put("stages", a.stages);
                    else if (field == "flop_per_byte") put("flop_per_byte", a.flop_per_byte);
                }
                entry["answer"] = answer;
            }
            if (g.time_ratio) entry["time_ratio"] = *g.time_ratio;
            // As in the table: no spoilers for questions not yet tried (--reveal shows them).
            if (attempted) {
                const auto& e = g.expected;
                nlohmann::json expected = {{"text", classify::expected_text(q, e)}};
                switch (q.type) {
                    case classify::QuestionType::regime:
                    case classify::QuestionType::incident:
                    case classify::QuestionType::predict:
                        expected["regime"] = regime_name(e.regime);
                        expected["time_us"] = e.time_us;
                        break;
                    case classify::QuestionType::lever: {
                        nlohmann::json names = nlohmann::json::array();
                        for (auto l : e.helps) names.push_back(classify::lever_name(l));
                        expected["helps"] = names;
                        break;
                    }
                    case classify::QuestionType::read_roofline:
                        expected["regime"] = regime_name(e.regime);
                        expected["fraction"] = e.fraction;
                        break;
                    case classify::QuestionType::littles_law:
                        expected["kib_per_sm"] = e.kib_per_sm;
                        expected["stages"] = e.stages;
                        break;
                    case classify::QuestionType::tile_intensity:
                        expected["flop_per_byte"] = e.flop_per_byte;
                        expected["regime"] = regime_name(e.regime);
                        break;
                }
                entry["expected"] = expected;
                entry["working"] = g.working;
                if (g.points < g.max_points) entry["explanation"] = q.explanation;
            }
            list.push_back(entry);
        }
        nlohmann::json out = {{"answers_file", answers_file},
                              {"questions", list},
                              {"answered", report.answered},
                              {"points", report.points},
                              {"max_points", report.max_points}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    std::size_t id_width = 8, answer_width = 11, expected_width = 8;
    for (const auto& g : report.grades) {
        id_width = std::max(id_width, g.question->id.size());
        if (g.answer && g.answer->attempted()) {
            answer_width = std::max(answer_width, classify::answer_text(*g.question, *g.answer).size());
            expected_width = std::max(expected_width, classify::expected_text(*g.question, g.expected).size());
        }
    }
    fmt::print("{:<{}}  {:<14}  {:<{}}  {:<{}}  {:>7}\n", "question", id_width, "type", "your answer", answer_width,
               "expected", expected_width, "points");
    std::vector<std::string> unanswered;
    for (const auto& g : report.grades) {
        const auto& q = *g.question;
        bool attempted = g.answer && g.answer->attempted();
        // Keep the answer hidden until it is attempted: a partial check should not spoil the rest.
        if (!attempted) unanswered.push_back(q.id);
        fmt::print("{:<{}}  {:<14}  {:<{}}  {:<{}}  {:>3g}/{:g}\n", q.id, id_width, classify::question_type_name(q.type),
                   attempted ? classify::answer_text(q, *g.answer) : "-", answer_width,
                   attempted ? classify::expected_text(q, g.expected) : "?", expected_width, g.points, g.max_points);
    }
    bool any_missed = false;
    for (const auto& g : report.grades) {
        bool attempted = g.answer && g.answer->attempted();
        if (!attempted || g.points >= g.max_points) continue;
        if (!any_missed) fmt::print("\nWhere points were lost:\n");
        any_missed = true;
        fmt::print("\n[{}] {}\n  working: {}\n  {}\n", g.question->id, fmt::join(g.misses, "; "), g.working,
                   g.question->explanation);
    }
    if (!unanswered.empty()) {
        fmt::print("\nNot answered yet ({}): {}\n", unanswered.size(), fmt::join(unanswered, ", "));
    }
    fmt::print("\nTotal: {:g} / {:g} points ({:.0f}%), {} of {} questions answered.\n", report.points,
               report.max_points, report.max_points > 0 ? 100 * report.points / report.max_points : 0.0,
               report.answered, report.grades.size());
    fmt::print("Each question is worth 2 points: 1 for each of its two answer fields (regime and time floor: 0.5 if\n"
               "the time is within 3x), or 2 for a single one (a predicted time; the levers, shared among them).\n");
}

// The answer key, for instructors and for after an attempt.
void print_key(const std::vector<classify::Question>& questions, const std::vector<HardwareProfile>& profiles,
               const std::map<std::string, double>& overheads, bool json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& q : questions) {
        const auto& p = find_profile(profiles, q.gpu);
        auto e = classify::expected_answer(q, p, overheads.at(p.id));
        auto work = classify::working(q, e);
        if (json) {
            list.push_back({{"id", q.id},
                            {"gpu", q.gpu},
                            {"type", classify::question_type_name(q.type)},
                            {"answer", classify::expected_text(q, e)},
                            {"regime", regime_name(e.regime)},
                            {"time_us", e.time_us},
                            {"working", work},
                            {"explanation", q.explanation}});
        } else {
            fmt::print("[{}] {}\n  {}\n", q.id, classify::expected_text(q, e), work);
        }
    }
    if (json) fmt::print("{}\n", nlohmann::json{{"answers", list}}.dump(2));
}

void run_classify(Context& context, const ClassifyOptions& o) {
    auto profiles = load_profiles(context.hardware_dir());
    auto overheads = launch_overheads(context, profiles);

    std::vector<classify::Question> questions;
    std::string source;
    std::string same_flags;
    if (o.generate) {
        if (!o.bank.empty()) throw InputError("classify: use either --bank or --generate, not both");
        std::uint64_t seed = o.seed ? *o.seed
                                    : std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 100000;
        questions = classify::generate_questions(*o.generate, seed, profiles);
        source = fmt::format("--generate {} --seed {}", *o.generate, seed);
        same_flags = source;
    } else {
        if (o.seed) throw InputError("classify: --seed goes with --generate N");
        std::filesystem::path bank = o.bank.empty() ? context.root() / "lessons" / "practice" / "bank.yaml"
                                                    : std::filesystem::path(o.bank);
        questions = classify::load_bank(bank);
        source = bank.string();
        same_flags = o.bank.empty() ? "" : fmt::format("--bank {}", o.bank);
    }
    classify::validate_questions(questions, profiles);

    if (!o.write_template.empty()) {
        std::filesystem::path file = o.write_template;
        if (std::filesystem::exists(file) && !o.force) {
            throw InputError(fmt::format("--write-template: {} exists; pick another name or add --force to overwrite",
                                         file.string()));
        }
        write_output_file(file,
                          classify::answers_template(questions, same_flags.empty() ? "roofline classify (the default bank)"
                                                                                   : "roofline classify " + same_flags),
                          "--write-template");
        fmt::print("Wrote {} ({} questions). Fill it in, then: roofline classify --check {}{}\n", file.string(),
                   questions.size(), file.string(), same_flags.empty() ? "" : " " + same_flags);
        context.exit_code = kGradedCorrect;
        return;
    }
    if (o.reveal) {
        if (!o.check.empty()) throw InputError("classify: --reveal prints the answer key; leave out --check");
        print_key(questions, profiles, overheads, o.json);
        context.exit_code = kGradedCorrect;
        return;
    }
    if (!o.check.empty()) {
        auto answers = classify::load_answers(o.check, questions);
        auto report = classify::check_answers(questions, profiles, answers, overheads);
        print_report(report, o.check, o.json);
        context.exit_code = kGradedCorrect;
        return;
    }
    print_questions(questions, profiles, overheads, source, o.json);
    context.exit_code = kGradedCorrect;
}

}  // namespace

void add_classify_command(CLI::App& app, Context& context) {
    static ClassifyOptions o;
    auto* cmd = app.add_subcommand(
        "classify", "practice: say whether an operation is compute-, memory- or overhead-bound, and its time floor");
    cmd->add_option("--check", o.check, "grade an answers file (a YAML list of {id, regime, time_us})")->check(file_path());
    cmd->add_option("--bank", o.bank, "the question bank (default: lessons/practice/bank.yaml)")->check(file_path());
    cmd->add_option("--write-template", o.write_template, "write an answers file with every id, to fill in")->check(file_path());
    cmd->add_flag("--force", o.force, "let --write-template overwrite an existing file");
    cmd->add_option("--generate", o.generate, "N generated questions instead of the bank")->check(whole_in(1, 1000));
    cmd->add_option("--seed", o.seed, "the seed for --generate (the same seed gives the same questions)")
        ->check(whole_in(0, std::numeric_limits<std::uint64_t>::max()));
    cmd->add_flag("--json", o.json, "print the questions or the check as JSON");
    cmd->add_flag("--reveal", o.reveal, "print the answer key with the working (try the questions first)");
    cmd->footer(
        "Examples:\n"
        "  roofline classify                                  read the questions\n"
        "  roofline classify --write-template answers.yaml    make a file to answer in\n"
        "  roofline classify --check answers.yaml             grade it\n"
        "  roofline classify --generate 10 --seed 42          fresh questions; check them with the same flags");
    cmd->callback([&context] { run_classify(context, o); });
}

}  // namespace roofline::cli

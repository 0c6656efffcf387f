// What a grading run prints and writes: the terminal summary a student reads in
// five seconds, the same as JSON, and a Gradescope results.json.
#pragma once
#include "lab_spec.hpp"
#include "lab_run.hpp"
#include "score.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace roofline {

struct GradeContext {
    std::string target;       // 01-memory-roof/copy_naive_fp32
    std::string gpu;          // the CUDA device name
    std::string source;       // labs or solutions
    bool prediction_edited = false;
};

std::string terminal_report(const GradeContext& context, const Score& score, const protocol::Result& result);
// For a run that never reached scoring: wrong answer, crash, timeout, CUDA error.
std::string failure_report(const GradeContext& context, const LabRun& run);

nlohmann::json score_json(const GradeContext& context, const Score& score, const protocol::Result& result);
nlohmann::json failure_json(const GradeContext& context, const LabRun& run, double max_points);

// Gradescope's autograder format: score, max_score, tests[{name, score, max_score, output, visibility}].
nlohmann::json gradescope_json(const LabSpec& lab, const GradeContext& context, const Score* score,
                               const LabRun* failure);

// The grading JSON's `shared_gpu` (other processes used the GPU while the variant was timed),
// in words a student may read: how many processes, never their names or paths (in a batch a
// neighbour is another student's lab program, run from a folder named after that student).
// Empty when the grading has no such field. The score is as measured: the note says why a
// time may be slower, it changes nothing.
std::string shared_gpu_gradescope_note(const nlohmann::json& grading);
// Puts that note into `gradescope` (gradescope_json's): its top-level output, which Gradescope
// shows above the tests, and the output of its performance test. Nothing without the field.
void add_shared_gpu_note(nlohmann::json& gradescope, const nlohmann::json& grading);

// The first mismatches of the first failing check, as "index: expected X, got Y" lines.
std::string mismatch_lines(const protocol::Result& result);

}  // namespace roofline

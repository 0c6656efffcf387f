// labs/NN-name/lab.yaml: what a lab is, its variants, shapes, tolerances and
// scoring. Loaded and schema-checked before anything is built or run.
#pragma once
#include "dtype.hpp"
#include "hardware_requirement.hpp"
#include "problem_family.hpp"
#include "roofline.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

std::string shape_text(const Shape& shape);  // "k=4096,m=4096,n=4096"

struct Tolerance {
    double atol = 0, rtol = 0, max_rel_l2 = 0;
};

struct Scoring {
    double correctness = 0;   // points for passing every check
    double performance = 0;   // points, linear from floor_fraction to target_fraction
    double prediction = 0;    // points for the prediction's regime and time
    // Points for the DRAM byte prediction (`predict --bytes`), earned when ncu's count for
    // that prediction (`roofline profile`) is within 10% of it (score.hpp). 0: not scored.
    double byte_prediction = 0;
    // Points for the diagnosis (`roofline diagnose`) when the counters bear it out: the slow
    // kernel's profile shows the cause named, the fix's profile shows it gone
    // (diagnosis_score.hpp). 0: not scored.
    double diagnosis = 0;
    std::string against = "peer";  // peer: the library measured in the same run; roofline: the ceiling
    double floor_fraction = 0;
    double target_fraction = 1;
    // Points per variant for the gap note (`roofline explain`), awarded by the
    // instructor by hand; not in total(), which the grader awards. 0: not graded.
    double gap_note = 0;
    double total() const { return correctness + performance + prediction + byte_prediction + diagnosis; }
};

struct VariantSpec {
    std::string name;
    std::string problem;  // the lab's unless the variant names another (lab 06 mixes row sums and a GEMM)
    std::string op;       // one of its family's ops (problems/NAME/family.cpp): copy, gemm_abt, row_sum, ...
    Dtype dtype = Dtype::fp32;
    std::filesystem::path file;  // relative to the lab folder: kernels/01_copy_naive.cu
    std::string summary;
    Shape timed;                       // the lab's timed shape unless the variant overrides it
    std::map<std::string, long long> divisible_by;  // e.g. {m: 128}: shapes must be multiples
    double target_fraction = 1;
    double floor_fraction = 0;
    std::string against = "peer";  // the lab's unless the variant overrides it
    std::optional<Tolerance> tolerance;  // the lab's for the dtype unless the variant sets its own
    // `requires: {compute_capability: "10.0"}` (the lab's unless the variant sets its own):
    // the one GPU its machine code runs on. Empty: any GPU the lab programs are built for.
    std::optional<ComputeCapability> requires_cc;
    // `instruction_roof: mma_sync`: the report also shows the variant's fraction of that
    // measured instruction ceiling (instruction_roof.hpp). Empty: none.
    std::string instruction_roof;
    // Graded on the CPU (a family such as lab 05's layout library): its CPU program checks
    // it, with no GPU, no timing and no prediction; `dtype`, shapes and tolerances do not apply.
    bool cpu_graded = false;
    // `open: true`: the lab's open rung, at the top of its ladder. Its skeleton gives only the
    // contract (signature, shapes, the helpers it may use) and the lesson the ideas; the design is
    // the student's. Graded like any other rung; `roofline list` and the class report mark it.
    bool open = false;
    int line = 0;  // in lab.yaml, for error messages
};

// Whether a problem family is graded on the CPU (cpu_grade.hpp) rather than timed on a GPU.
bool graded_on_cpu(const std::string& problem);

struct LabSpec {
    std::string id;  // folder name: 01-memory-roof
    std::string title;
    std::string lesson;
    std::string problem;  // a family (a folder of grader/problems/): the variants' unless one names another
    double timeout_s = 60;         // one variant's whole run in the lab program
    double launch_timeout_s = 10;  // one kernel launch: still running after this, it is a hang (hang_watch.hpp)
    // What a kernel file may call besides its own kernels (symbol_check.hpp); empty by default.
    std::vector<std::string> allow_calls;  // cudaMemcpy, cudaMemset
    Shape timed;
    std::vector<Shape> verify;
    // Size sweep (lab 00): also time each variant with n divided by each of these, and
    // classify the regime from how the time scales. Empty: no sweep.
    std::vector<long long> sweep_divisors;
    std::map<Dtype, Tolerance> tolerance;
    Scoring scoring;
    // `given_kernels: correct`: the kernel files handed out pass every check as they are and
    // are slow by design (lab 02: the student profiles and fixes them). The default,
    // `skeletons`: they hold TODOs and fail until written.
    bool given_kernels_correct = false;
    std::vector<VariantSpec> variants;
    std::filesystem::path file;  // the lab.yaml

    const VariantSpec& variant(const std::string& name) const;  // throws InputError listing the names
    const Tolerance& tolerance_for(const VariantSpec& v) const;
    // Why `shape` is not allowed for `v` (a divisibility rule), or nothing.
    std::optional<std::string> shape_refusal(const VariantSpec& v, const Shape& shape) const;
    // The lab's verify shapes that suit `v`'s operation (a lab may mix operations).
    std::vector<Shape> verify_shapes_for(const VariantSpec& v) const;
    // The work of `v` at `shape`, from its family's descriptor (problem_family.hpp):
    // FLOPs and fewest bytes of the variant, of its peer (cudaMemcpy of one array,
    // cuBLAS, ...) to compare rates, and, where the family has one (fusion), of the
    // unfused chain the variant replaces, to show the bytes saved.
    Workload work(const VariantSpec& v, const Shape& shape) const;
    Workload peer_work(const VariantSpec& v, const Shape& shape) const;
    std::optional<Workload> unfused_work(const VariantSpec& v, const Shape& shape) const;
    // The work of the run shown beside the peer (ProblemOp::also_work), where the family has one.
    std::optional<Workload> also_work(const VariantSpec& v, const Shape& shape) const;
};

LabSpec load_lab(const std::filesystem::path& lab_yaml);
// Whether `v`'s kernel file under labs/ passes every check as handed out: the lab says its
// kernels are correct (`given_kernels: correct`), or the file has no counterpart under
// `solutions_lab_dir` (solutions/LAB), so it is given code the student does not write
// (lab 04's unfused baselines). An open rung (`open: true`) is never given code: its file is
// the contract only, a skeleton even in a lab whose other kernels are correct (lab 02).
bool given_kernel_passes(const LabSpec& lab, const VariantSpec& v, const std::filesystem::path& solutions_lab_dir);
// All labs under root/labs, sorted by id.
std::vector<LabSpec> load_labs(const std::filesystem::path& labs_dir);
// "01-memory-roof/copy_naive_fp32" -> (lab, variant); the error shows the expected form. An old
// lab name (lab_aliases.hpp: "04-async/...") gives the new one, with a note on stderr.
std::pair<std::string, std::string> split_target(const std::string& target);

}  // namespace roofline

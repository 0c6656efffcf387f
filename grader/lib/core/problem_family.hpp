// A problem family as the grader sees it: the operations a lab.yaml may name
// under it, the sizes and dtypes each takes, and the FLOP and byte model of a
// variant, of its peer and, where the family shows what fusion saves, of the
// unfused chain it replaces. One descriptor per family (problems/NAME/family.cpp),
// listed in one table generated from the folders (problems/families_table.in); its op
// names and shape keys come from problems/NAME/ops.hpp, which the lab program's side
// reads too; the lab.yaml loader, the scorer
// and `roofline calc` all read them. The lab program's side of a family (inputs,
// reference, peer) is its problems/NAME/*_problem.cu. How to add a family:
// grader/problems/README.md.
#pragma once
#include "dtype.hpp"
#include "workload.hpp"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

using Shape = std::map<std::string, long long>;  // {m: 4096, n: 4096, k: 4096}

// The work of one operation at a shape that gives exactly the op's sizes, in `dtype`.
using WorkModel = std::function<Workload(const Shape& shape, Dtype dtype)>;

struct ProblemOp {
    std::string name;                     // as lab.yaml's `op`: gemm_abt
    std::vector<std::string> shape_keys;  // the sizes its shapes give, sorted: {"k", "m", "n"}
    std::vector<Dtype> dtypes;            // the dtypes the lab program registers it in
    WorkModel work;                       // FLOPs and fewest bytes of a variant
    WorkModel peer_work;                  // the same for the peer (cudaMemcpy of one array, cuBLAS, ...)
    WorkModel unfused_work;               // the unfused chain the op replaces; empty: none to show
    // A second library run the lab program times beside the peer and the report shows,
    // never scored (lab 09: cuBLAS's bf16 GEMV of the same shape); empty: none.
    WorkModel also_work;
    bool takes(Dtype dtype) const;
};

struct ProblemFamily {
    std::string name;  // as lab.yaml's `problem`: gemm
    std::vector<ProblemOp> ops;
    bool graded_on_cpu = false;  // checked by a CPU program (lib/grading/cpu_grade.hpp), never timed: lab 05's layouts
    const ProblemOp* op(std::string_view name) const;  // nullptr: not one of its ops
    std::vector<std::string> op_names() const;
};

// Every family, from the table generated from the folders of problems/ (families_table.in).
const std::vector<ProblemFamily>& problem_families();
const ProblemFamily* find_family(std::string_view name);  // nullptr: no such family
std::vector<std::string> family_names();
// The descriptor of `family`'s `op`; throws std::invalid_argument naming the choices.
const ProblemOp& family_op(std::string_view family, std::string_view op);

}  // namespace roofline

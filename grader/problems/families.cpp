// The problem families the grader knows: one line each (README.md in this
// folder says how to add one). A lab.yaml's `problem` must name one of them.
#include "problem_family.hpp"

namespace roofline {

namespace attention { ProblemFamily family(); }    // attention/family.cpp
namespace decode_attention { ProblemFamily family(); }  // decode_attention/family.cpp
namespace elementwise { ProblemFamily family(); }  // elementwise/family.cpp
namespace fusion { ProblemFamily family(); }       // fusion/family.cpp
namespace gemm { ProblemFamily family(); }         // gemm/family.cpp
namespace gemv { ProblemFamily family(); }         // gemv/family.cpp
namespace layout { ProblemFamily family(); }       // layout/family.cpp
namespace reduction { ProblemFamily family(); }    // reduction/family.cpp
namespace transpose { ProblemFamily family(); }    // transpose/family.cpp

const std::vector<ProblemFamily>& problem_families() {
    static const std::vector<ProblemFamily> table{
        attention::family(),
        decode_attention::family(),
        elementwise::family(),
        fusion::family(),
        gemm::family(),
        gemv::family(),
        layout::family(),
        reduction::family(),
        transpose::family(),
    };
    return table;
}

}  // namespace roofline

# roofline_check_arch_code(TARGET ARCH sm_100a [SOURCE file] [SASS opcode...] [PTX instruction...])
#
# A CPU test (label cpu, runs in CI) that the architecture-specific instructions a lab
# teaches really are in its machine code, not just in its source:
#  - where cuobjdump exists, the SASS of TARGET must be for ARCH and hold every SASS opcode;
#  - where it does not (a CUDA install without the binary utilities, like our CI image),
#    SOURCE is compiled to PTX for ARCH (compute_*) and must hold every PTX instruction;
#    without SOURCE the test checks only that TARGET was built.
# The test prints the tensor-core, TMEM and TMA opcodes it saw, so that a run on a machine
# with cuobjdump shows the real names.
function(roofline_check_arch_code target)
  cmake_parse_arguments(ARG "" "ARCH;SOURCE" "SASS;PTX" ${ARGN})
  if(NOT TARGET ${target})
    return()  # solution-* where solutions/ is absent (the student edition)
  endif()
  find_program(ROOFLINE_CUOBJDUMP cuobjdump HINTS "${CUDAToolkit_BIN_DIR}")
  set(script "${PROJECT_SOURCE_DIR}/cmake/check_arch_code.cmake")
  if(ROOFLINE_CUOBJDUMP)
    string(JOIN "|" expect ${ARG_SASS})
    add_test(NAME arch-code-${target}
             COMMAND ${CMAKE_COMMAND} -DMODE=sass "-DTOOL=${ROOFLINE_CUOBJDUMP}" "-DFILE=$<TARGET_FILE:${target}>"
                     "-DARCH=${ARG_ARCH}" "-DEXPECT=${expect}" -P "${script}")
  elseif(ARG_SOURCE AND ARG_PTX)
    string(REPLACE "sm_" "compute_" virtual_arch "${ARG_ARCH}")
    add_library(${target}-ptx OBJECT "${PROJECT_SOURCE_DIR}/${ARG_SOURCE}")
    set_target_properties(${target}-ptx PROPERTIES CUDA_PTX_COMPILATION ON CUDA_ARCHITECTURES OFF)
    target_compile_options(${target}-ptx PRIVATE "-gencode=arch=${virtual_arch},code=${virtual_arch}")
    # As a kernel file's: grader/include, its lab's folder (labs/NN-name: the given headers) and
    # the old names (grader/include/compat).
    string(REGEX REPLACE "^[^/]+/([^/]+)/.*$" "\\1" lab "${ARG_SOURCE}")
    target_include_directories(${target}-ptx PRIVATE "${PROJECT_SOURCE_DIR}/grader/include"
                                                     "${PROJECT_SOURCE_DIR}/labs/${lab}"
                                                     "${PROJECT_SOURCE_DIR}/grader/include/compat")
    string(JOIN "|" expect ${ARG_PTX})
    add_test(NAME arch-code-${target}
             COMMAND ${CMAKE_COMMAND} -DMODE=ptx "-DFILE=$<TARGET_OBJECTS:${target}-ptx>" "-DARCH=${ARG_ARCH}"
                     "-DEXPECT=${expect}" -P "${script}")
  else()
    add_test(NAME arch-code-${target}
             COMMAND ${CMAKE_COMMAND} -DMODE=exists "-DFILE=$<TARGET_FILE:${target}>" -P "${script}")
  endif()
  set_tests_properties(arch-code-${target} PROPERTIES LABELS cpu)
endfunction()

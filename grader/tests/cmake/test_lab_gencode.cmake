# CPU test (label cpu): roofline_lab_gencode (cmake/RooflineLab.cmake) turns lab.yaml's
# `requires` into the lab's -gencode, and refuses what it cannot build, with file:line.
#   cmake -DSOURCE_DIR=<project> -DWORK_DIR=<scratch folder> -P test_lab_gencode.cmake
# With -DLAB_YAML=<file> it prints one lab's gencode instead (the cases below run that way,
# each in a cmake of its own, since a refusal is a FATAL_ERROR).
include("${SOURCE_DIR}/cmake/RooflineLab.cmake")
if(DEFINED LAB_YAML)
  roofline_lab_gencode(gencode "${LAB_YAML}")
  message("gencode=[${gencode}]")
  return()
endif()

set(failures 0)
# expect(yaml expected-regex): the one-lab run's output must match.
function(expect yaml expected)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DSOURCE_DIR=${SOURCE_DIR}" "-DLAB_YAML=${yaml}" -P "${CMAKE_CURRENT_LIST_FILE}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
  string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")  # CMake wraps its messages
  if(said MATCHES "${expected}")
    message(STATUS "ok    ${yaml}: ${expected}")
  else()
    message(STATUS "FAIL  ${yaml}: expected ${expected}, got (exit ${status}): ${said}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
  endif()
endfunction()

file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/block.yaml" "title: t; with [brackets\nrequires:\n  compute_capability: 9.0   # unquoted\n")
file(WRITE "${WORK_DIR}/variant_disagrees.yaml"
     "requires: {compute_capability: \"9.0\"}\nvariants:\n  - {name: a,\n     requires: {compute_capability: \"10.0\"}}\n")
file(WRITE "${WORK_DIR}/variant_only.yaml" "variants:\n  - {name: a, requires: {compute_capability: \"10.0\"}}\n")
file(WRITE "${WORK_DIR}/not_a_cc.yaml" "title: t\nrequires: {compute_capability: sm_90a}\n")

expect("${SOURCE_DIR}/labs/06-async/lab.yaml" "gencode=\\[arch=compute_90a,code=sm_90a\\]")
expect("${SOURCE_DIR}/labs/07-blackwell/lab.yaml" "gencode=\\[arch=compute_100a,code=sm_100a\\]")
expect("${SOURCE_DIR}/labs/01-memory-roof/lab.yaml" "gencode=\\[\\]")
expect("${WORK_DIR}/block.yaml" "gencode=\\[arch=compute_90a,code=sm_90a\\]")
expect("${WORK_DIR}/variant_disagrees.yaml" "variant_disagrees.yaml:4: a variant requires compute capability 10.0, but the lab's requires \\(line 1\\) says 9.0")
expect("${WORK_DIR}/variant_only.yaml" "variant_only.yaml:2: a variant requires compute capability 10.0, but the lab has no requires")
expect("${WORK_DIR}/not_a_cc.yaml" "not_a_cc.yaml:2: compute_capability must be MAJOR.MINOR")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()

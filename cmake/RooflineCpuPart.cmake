# roofline_add_cpu_part(NN-name CHECKER target)
#
# The CPU-graded part of a lab (lab 09's layout library): host C++ files under
# labs/NN-name/cpu/ (the student's) and solutions/NN-name/cpu/ (filled in), each set
# linked with the family's checker (an OBJECT library holding main) into
# lab-NN-name-cpu and solution-NN-name-cpu in <build>/labs/. No CUDA is compiled or
# run: `roofline grade` runs these programs for the lab's CPU-graded variants
# (lib/cpu_grade.hpp), on any machine. Skipped where the folder does not exist.
function(roofline_add_cpu_part lab)
  cmake_parse_arguments(ARG "" "CHECKER" "" ${ARGN})
  foreach(kind lab solution)
    if(kind STREQUAL "lab")
      set(folder "${PROJECT_SOURCE_DIR}/labs/${lab}/cpu")
    else()
      set(folder "${PROJECT_SOURCE_DIR}/solutions/${lab}/cpu")
    endif()
    if(NOT IS_DIRECTORY "${folder}")
      continue()
    endif()
    file(GLOB sources CONFIGURE_DEPENDS "${folder}/*.cpp")
    set(target "${kind}-${lab}-cpu")
    add_executable(${target} ${sources})
    target_link_libraries(${target} PRIVATE ${ARG_CHECKER})
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/grader/include")
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/labs")
    add_dependencies(roofline_labs ${target})
  endforeach()
endfunction()

# roofline_add_lab(NN-name [GENCODE arch=compute_90a,code=sm_90a ...] [LIBRARIES ...] [ROOT dir])
#
# Makes two executables from the same harness: lab-NN-name from the student's
# labs/NN-name/kernels/*.cu and solution-NN-name from solutions/NN-name/kernels/*.cu
# plus any labs/ file that has no solution (given code), skipped when solutions/
# is absent. Both land in
# <build>/labs/, where `roofline` looks for them. ROOT (default: the project)
# holds labs/ and solutions/; the GPU tests use it for their broken-kernel lab.
#
# GENCODE replaces the default architecture with arch-specific targets: wgmma and
# tcgen05 need sm_90a / sm_100a, spelled as -gencode (the -arch=sm_90a shorthand
# also runs a plain sm_90 pass that rejects them).
function(roofline_add_lab lab)
  cmake_parse_arguments(ARG "" "ROOT" "GENCODE;LIBRARIES" ${ARGN})
  if(NOT ARG_ROOT)
    set(ARG_ROOT "${PROJECT_SOURCE_DIR}")
  endif()
  foreach(kind lab solution)
    if(kind STREQUAL "lab")
      set(folder "${ARG_ROOT}/labs/${lab}/kernels")
    else()
      set(folder "${ARG_ROOT}/solutions/${lab}/kernels")
    endif()
    if(NOT IS_DIRECTORY "${folder}")
      continue()
    endif()
    file(GLOB kernels CONFIGURE_DEPENDS "${folder}/*.cu")
    if(kind STREQUAL "solution")
      # Given code (a baseline the student does not edit) lives in labs/ only: a
      # kernel file with no counterpart in solutions/ is taken from labs/.
      file(GLOB lab_kernels CONFIGURE_DEPENDS "${ARG_ROOT}/labs/${lab}/kernels/*.cu")
      foreach(lab_kernel ${lab_kernels})
        get_filename_component(name "${lab_kernel}" NAME)
        if(NOT EXISTS "${folder}/${name}")
          list(APPEND kernels "${lab_kernel}")
        endif()
      endforeach()
    endif()
    set(target "${kind}-${lab}")
    add_executable(${target} ${kernels})
    target_link_libraries(${target} PRIVATE roofline_lab_main roofline_problems ${ARG_LIBRARIES})
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/grader/problems")
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/labs")
    if(ARG_GENCODE)
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
      foreach(code ${ARG_GENCODE})
        target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-gencode=${code}>")
      endforeach()
    endif()
    if(kind STREQUAL "lab")
      # Skeletons declare helpers the student has yet to call.
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>")
    endif()
    add_dependencies(roofline_labs ${target})
  endforeach()
endfunction()

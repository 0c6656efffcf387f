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
      roofline_write_build_kit(${lab} ${target} "${ARG_GENCODE}" "${ARG_LIBRARIES}")
    endif()
    add_dependencies(roofline_labs ${target})
  endforeach()
endfunction()

# <build>/labs/NN-name.build-kit: how lab-NN-name's kernel files are compiled and
# linked, for `roofline batch`, which builds each submission by compiling only
# its kernel files with nvcc and linking them against this build's static
# harness libraries (a CMake configure per submission would be far too slow).
# One "key=value" per line; keys repeat: nvcc, compile (a flag), link (a file or flag).
function(roofline_write_build_kit lab target gencodes libraries)
  set(arch_flags)
  if(gencodes)
    foreach(code ${gencodes})
      list(APPEND arch_flags "-gencode=${code}")
    endforeach()
  else()
    foreach(arch ${CMAKE_CUDA_ARCHITECTURES})
      string(REGEX REPLACE "-(real|virtual)$" "" number "${arch}")
      if(arch MATCHES "-real$")
        list(APPEND arch_flags "--generate-code=arch=compute_${number},code=[sm_${number}]")
      elseif(arch MATCHES "-virtual$")
        list(APPEND arch_flags "--generate-code=arch=compute_${number},code=[compute_${number}]")
      else()
        list(APPEND arch_flags "--generate-code=arch=compute_${number},code=[compute_${number},sm_${number}]")
      endif()
    endforeach()
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(config_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${config}}")
  set(compile ${config_flags} ${arch_flags} -diag-suppress=177 -std=c++${CMAKE_CUDA_STANDARD})
  string(REPLACE "," "$<COMMA>" compile "${compile}")  # -gencode values hold commas; $<JOIN> splits on them

  # Every library file the target links, walking the link interface of each target.
  set(queue roofline_lab_main roofline_problems ${libraries})
  set(seen)
  set(link_files)
  while(queue)
    list(POP_FRONT queue item)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${item}")
    if(TARGET ${item})
      get_target_property(type ${item} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        list(APPEND link_files "$<TARGET_LINKER_FILE:${item}>")
      endif()
      get_target_property(deps ${item} INTERFACE_LINK_LIBRARIES)
      if(deps)
        list(APPEND queue ${deps})
      endif()
    elseif(item MATCHES "^\\$<" OR item STREQUAL "")
      continue()
    elseif(IS_ABSOLUTE "${item}" OR item MATCHES "^-")
      list(APPEND link_files "${item}")
    else()
      # A bare system library name (newer CMake's CUDA::cudart lists dl and rt): a -l flag.
      list(APPEND link_files "-l${item}")
    endif()
  endwhile()

  set(nl "\n")
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/labs/${lab}.build-kit" CONTENT
"# Generated by CMake (cmake/RooflineLab.cmake) for `roofline batch`: how ${target} is built.
lab=${lab}
nvcc=${CMAKE_CUDA_COMPILER}
compile=-I$<JOIN:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,${nl}compile=-I>
compile=-D$<JOIN:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,${nl}compile=-D>
compile=$<JOIN:${compile},${nl}compile=>
link=$<JOIN:${link_files},${nl}link=>
")
endfunction()

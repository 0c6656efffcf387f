# roofline_add_lab(NN-name [LIBRARIES ...] [ROOT dir] [NO_LIST_CHECK])
#
# Makes two executables from the same harness: lab-NN-name from the student's
# labs/NN-name/kernels/*.cu and solution-NN-name from solutions/NN-name/kernels/*.cu
# plus any labs/ file that has no solution (given code), skipped when solutions/
# is absent. Both land in
# <build>/labs/, where `roofline` looks for them. ROOT (default: the project)
# holds labs/ and solutions/; the GPU tests use it for their broken-kernel lab.
#
# The architecture comes from lab.yaml: `requires: {compute_capability: "9.0"}` builds
# the lab for that GPU's arch-specific target alone (roofline_lab_gencode below), and
# `roofline grade` refuses the lab on any other GPU. Without `requires`, the project's
# CMAKE_CUDA_ARCHITECTURES.
#
# Each program also gets a CPU test, lab-list:<program>, that its registered variants
# (`--list`) are the ones lab.yaml describes (tests/lab_list_check); NO_LIST_CHECK
# leaves it out, for a fixture lab that registers a variant wrongly on purpose.
function(roofline_add_lab lab)
  cmake_parse_arguments(ARG "NO_LIST_CHECK" "ROOT" "LIBRARIES" ${ARGN})
  if(NOT ARG_ROOT)
    set(ARG_ROOT "${PROJECT_SOURCE_DIR}")
  endif()
  set(lab_yaml "${ARG_ROOT}/labs/${lab}/lab.yaml")
  roofline_lab_gencode(gencode "${lab_yaml}")
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
    # The kernel files as objects of their own, so that the grader can read their
    # symbols (lib/launch/symbol_check.hpp) before it runs them. grader/include is the only
    # grader folder they see: what a kernel file may include is there (roofline/contract/*,
    # roofline/ptx/*). The lab's folder is the other: its given code (labs/NN-name/given/*.cuh,
    # included as "given/NAME.cuh") is written once, and the skeleton and the solution include
    # the same file. Last, grader/include/compat: the old flat names (roofline/wgmma.cuh) that
    # kernel files written before the split still include (its README.md).
    add_library(${target}-kernels OBJECT ${kernels})
    target_link_libraries(${target}-kernels PRIVATE ${ARG_LIBRARIES})
    target_include_directories(${target}-kernels PRIVATE "${PROJECT_SOURCE_DIR}/grader/include"
                                                         "${ARG_ROOT}/labs/${lab}"
                                                         "${PROJECT_SOURCE_DIR}/grader/include/compat")
    # Source lines in the machine code, for `roofline run --sanitize` (file:line of a finding)
    # and ncu's source view; it changes no instruction.
    target_compile_options(${target}-kernels PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>")
    add_executable(${target} $<TARGET_OBJECTS:${target}-kernels>)
    target_link_libraries(${target} PRIVATE roofline_lab_main roofline_problems ${ARG_LIBRARIES})
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/labs" LINKER_LANGUAGE CXX)
    if(gencode)
      set_target_properties(${target}-kernels ${target} PROPERTIES CUDA_ARCHITECTURES OFF)
      foreach(code ${gencode})
        target_compile_options(${target}-kernels PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-gencode=${code}>")
      endforeach()
    endif()
    if(kind STREQUAL "lab")
      # Skeletons declare helpers the student has yet to call.
      target_compile_options(${target}-kernels PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>")
      roofline_write_build_kit(${lab} ${target}-kernels "${gencode}" "${ARG_LIBRARIES}")
    endif()
    roofline_write_link_manifest(${target} "${ARG_LIBRARIES}")
    add_dependencies(roofline_labs ${target})
    add_dependencies(${target} roofline-judge)  # every grading of it runs under the judge
    if(NOT ARG_NO_LIST_CHECK)
      add_test(NAME lab-list:${target} COMMAND roofline_lab_list_check "${lab_yaml}" $<TARGET_FILE:${target}>)
      set_tests_properties(lab-list:${target} PROPERTIES LABELS cpu)
    endif()
  endforeach()
endfunction()

# roofline_lab_gencode(out lab.yaml): the -gencode value for the GPU that lab.yaml's
# `requires: {compute_capability: "MAJOR.MINOR"}` names, or nothing when it names none.
# The target is arch-specific ("9.0" -> arch=compute_90a,code=sm_90a; "10.0" ->
# compute_100a/sm_100a): wgmma and tcgen05 exist only there, and such code runs on that
# compute capability alone, which is what `requires` tells `roofline grade`. It must
# be spelled as -gencode: the -arch=sm_90a shorthand also runs a plain sm_90 pass that
# rejects them.
#
# A small reader, not a YAML parser: it takes the lab-level `requires:` (at the start of
# a line), either on one line or with `compute_capability:` on the next. One program
# holds one architecture's code, so a variant-level `requires` must agree with it.
function(roofline_lab_gencode out lab_yaml)
  set(${out} "" PARENT_SCOPE)
  if(NOT EXISTS "${lab_yaml}")
    return()  # roofline_add_lab makes no program without kernels either; `roofline` names the missing file
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lab_yaml}")
  # One list element per line: the characters a CMake list treats specially go first.
  file(READ "${lab_yaml}" text)
  string(REGEX REPLACE "[][;\\]" " " text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(cc_pattern "compute_capability:[ \t]*[\"']?([0-9]+)\\.([0-9]+)[\"']?")
  set(lab_cc "")
  set(lab_line 0)
  set(variant_ccs "")  # "LINE:MAJOR.MINOR" for each variant-level requirement
  set(line_number 0)
  set(after_requires FALSE)  # the previous line was a bare top-level `requires:`
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    string(REGEX REPLACE "#.*$" "" line "${line}")
    set(top_level FALSE)
    if(line MATCHES "^requires:")
      set(top_level TRUE)
    elseif(after_requires AND line MATCHES "^[ \t]+compute_capability:")
      set(top_level TRUE)
    endif()
    if(line MATCHES "^requires:[ \t]*$")
      set(after_requires TRUE)
      continue()
    endif()
    set(after_requires FALSE)
    if(NOT line MATCHES "compute_capability:")
      if(line MATCHES "^requires:")
        message(FATAL_ERROR "${lab_yaml}:${line_number}: CMake reads the lab's GPU from "
                "`requires: {compute_capability: \"MAJOR.MINOR\"}`; write it that way, e.g. "
                "requires: {compute_capability: \"9.0\"}")
      endif()
      continue()
    endif()
    if(NOT line MATCHES "${cc_pattern}")
      message(FATAL_ERROR "${lab_yaml}:${line_number}: compute_capability must be MAJOR.MINOR, e.g. "
              "compute_capability: \"9.0\" (Hopper, sm_90a) or \"10.0\" (Blackwell, sm_100a)")
    endif()
    set(cc "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    set(number "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    if(top_level)
      set(lab_cc "${cc}")
      set(lab_line ${line_number})
      set(lab_number "${number}")
    else()
      list(APPEND variant_ccs "${line_number}:${cc}")
    endif()
  endforeach()
  foreach(entry IN LISTS variant_ccs)
    string(REPLACE ":" ";" entry "${entry}")
    list(GET entry 0 line_number)
    list(GET entry 1 cc)
    if(NOT cc STREQUAL lab_cc)
      if(lab_cc)
        set(lab_says "the lab's requires (line ${lab_line}) says ${lab_cc}")
      else()
        set(lab_says "the lab has no requires of its own")
      endif()
      message(FATAL_ERROR "${lab_yaml}:${line_number}: a variant requires compute capability ${cc}, but "
              "${lab_says}. One lab program is built for one architecture: put "
              "`requires: {compute_capability: \"${cc}\"}` at the lab's level, or the variant in a lab of its own.")
    endif()
  endforeach()
  if(lab_cc)
    set(${out} "arch=compute_${lab_number}a,code=sm_${lab_number}a" PARENT_SCOPE)
  endif()
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
  set(compile ${config_flags} ${arch_flags} -diag-suppress=177 -lineinfo -std=c++${CMAKE_CUDA_STANDARD})
  string(REPLACE "," "$<COMMA>" compile "${compile}")  # -gencode values hold commas; $<JOIN> splits on them

  roofline_link_files(link_files "${libraries}")

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

# roofline_link_files(out libraries): every library file a lab program links, walking
# the link interface of each target; bare system names become -l flags.
function(roofline_link_files out libraries)
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

  set(${out} "${link_files}" PARENT_SCOPE)
endfunction()

# <build>/labs/<target>.objects: the kernel files' objects (object=) and the libraries
# the program links (library=), for the grader's symbol check before a run
# (grader/lib/launch/symbol_check.hpp). `roofline batch` writes the same file for each submission.
function(roofline_write_link_manifest target libraries)
  roofline_link_files(link_files "${libraries}")
  set(nl "\n")
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/labs/${target}.objects" CONTENT
"object=$<JOIN:$<TARGET_OBJECTS:${target}-kernels>,${nl}object=>
library=$<JOIN:${link_files},${nl}library=>
")
endfunction()

# attention's lab-program side (included by grader/CMakeLists.txt): with its peer, cuDNN's fused
# attention, it is a library of its own, roofline_attention, so that only lab 08's programs link
# cuDNN (the top CMakeLists.txt: roofline_add_lab(08-attention LIBRARIES roofline_attention));
# the judge links it where it exists. cuDNN 9 comes with NVIDIA's packages (the headers and
# libraries beside the toolkit's, or under /usr/include and /usr/lib); where it is missing,
# lab 08 is left out of the build. The descriptor (family.cpp) needs no cuDNN and is always built.
find_path(ROOFLINE_CUDNN_INCLUDE_DIR cudnn_graph.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(ROOFLINE_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
if(ROOFLINE_CUDNN_INCLUDE_DIR AND ROOFLINE_CUDNN_LIBRARY)
  add_library(roofline_attention STATIC
    ${CMAKE_CURRENT_LIST_DIR}/attention_problem.cu
    ${CMAKE_CURRENT_LIST_DIR}/cudnn_sdpa.cpp
  )
  target_include_directories(roofline_attention PRIVATE ${ROOFLINE_CUDNN_INCLUDE_DIR} ${PROJECT_SOURCE_DIR}/grader/include)
  target_link_libraries(roofline_attention PUBLIC roofline_problems ${ROOFLINE_CUDNN_LIBRARY})
else()
  message(WARNING "cuDNN 9 not found (cudnn_graph.h: ${ROOFLINE_CUDNN_INCLUDE_DIR}, libcudnn: "
          "${ROOFLINE_CUDNN_LIBRARY}): lab 08 (attention) is not built. Install NVIDIA's cudnn9 packages for this "
          "CUDA version (e.g. apt-get install cudnn9-cuda-13), then configure again.")
endif()

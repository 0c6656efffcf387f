# layout (lab 05) is graded on the CPU (included by grader/CMakeLists.txt): it has no lab-program
# side. Its checker is a program of the grader's, roofline-layout-check (beside roofline, which
# finds it there), with none of the student's code in it; the student's layout files are linked
# with a small query server (the runner's main) into lab-05-layouts-cpu, which the checker starts
# and asks (cmake/RooflineCpuPart.cmake, lib/grading/cpu_grade.hpp).
add_executable(roofline-layout-check
  ${CMAKE_CURRENT_LIST_DIR}/layout_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layout_check_main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_child.cpp
  ${CMAKE_CURRENT_LIST_DIR}/remote_library.cpp
)
target_link_libraries(roofline-layout-check PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
target_include_directories(roofline-layout-check PRIVATE ${PROJECT_SOURCE_DIR}/grader/include)
set_target_properties(roofline-layout-check PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
add_library(roofline_layout_runner OBJECT ${CMAKE_CURRENT_LIST_DIR}/layout_runner_main.cpp)
target_link_libraries(roofline_layout_runner PUBLIC nlohmann_json::nlohmann_json)
target_include_directories(roofline_layout_runner PUBLIC ${PROJECT_SOURCE_DIR}/grader/include)

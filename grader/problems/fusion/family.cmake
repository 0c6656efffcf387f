# fusion's lab-program side (included by grader/CMakeLists.txt): the default, every *.cu into
# roofline_problems, and one include folder more. gemm_epilogue_problem.cu times the given three
# kernels of lab 04's rung 6 beside every fused variant, and it includes the lab's own copy
# (labs/04-fusion/given/unfused_bias_gelu.cuh, with the given GEMM it calls), so the report's
# "also measured" column and rung 6 always run one code. Only that file sees the lab's folder.
roofline_family_lab_program_side(${ROOFLINE_FAMILY})
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/gemm_epilogue_problem.cu APPEND PROPERTY
             INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/labs/04-fusion)

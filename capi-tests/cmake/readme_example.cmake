# The README's C example is the file CTest builds (CTest helper, see ../CMakeLists.txt):
#   cmake -DREADME=<README.md> -DFILE=<consumer/main.c> -P readme_example.cmake
# Fails unless the block between <!-- c-example-begin --> and <!-- c-example-end -->
# (inside its ```c fence) is FILE, byte for byte.
file(READ "${README}" readme)
string(FIND "${readme}" "<!-- c-example-begin -->\n```c\n" a)
string(FIND "${readme}" "```\n<!-- c-example-end -->" b)
if(a LESS 0 OR b LESS 0)
  message(FATAL_ERROR "${README}: no C example between <!-- c-example-begin --> and <!-- c-example-end -->")
endif()
string(LENGTH "<!-- c-example-begin -->\n```c\n" head)
math(EXPR a "${a} + ${head}")
math(EXPR n "${b} - ${a}")
string(SUBSTRING "${readme}" ${a} ${n} block)
file(READ "${FILE}" want)
if(NOT block STREQUAL want)
  message(FATAL_ERROR "the README's C example is not ${FILE}; copy the file into the README block")
endif()
message(STATUS "the README's C example is ${FILE}")

# The command-line converter and a C TRACE-API plugin (CTest helper, see
# ../CMakeLists.txt):
#   cmake -DSLOG2=<bin/slog2> -DLIB=<libminitrace.so> -DNOSYM=<libminitrace_nosym.so>
#         -DFAIL=<libminitrace_fail.so> -DINPUT=<mini.trace> -DWORK=<dir> -P plugin_cli.cmake
# 1. `slog2 convert --trace-lib LIB INPUT` succeeds and `slog2 check` accepts the file;
# 2. `slog2 convert --trace-lib LIB -- -h` prints the plugin's help and exits 0;
# 3. a plugin without TRACE_Get_err_string is refused, naming the symbol;
# 4. a plugin that fails mid-stream makes the conversion fail with the
#    plugin's own error text and leaves no output file.

set(out "${WORK}/minitrace.slog2")
file(REMOVE "${out}" "${out}.nosym" "${out}.fail")

execute_process(COMMAND "${SLOG2}" convert --trace-lib "${LIB}" "${INPUT}" -o "${out}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT EXISTS "${out}")
  message(FATAL_ERROR "conversion through ${LIB} failed (${rc}):\n${o}${e}")
endif()
execute_process(COMMAND "${SLOG2}" check "${out}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "slog2 check rejects the converted file (${rc}):\n${o}${e}")
endif()

execute_process(COMMAND "${SLOG2}" convert --trace-lib "${LIB}" -- -h
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o MATCHES "minitrace line format")
  message(FATAL_ERROR "help through the plugin: exit ${rc}, stdout:\n${o}\nstderr:\n${e}")
endif()

execute_process(COMMAND "${SLOG2}" convert --trace-lib "${NOSYM}" "${INPUT}" -o "${out}.nosym"
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(rc EQUAL 0 OR NOT e MATCHES "TRACE_Get_err_string" OR EXISTS "${out}.nosym")
  message(FATAL_ERROR "missing symbol not reported by name (exit ${rc}):\n${e}")
endif()

execute_process(COMMAND "${SLOG2}" convert --trace-lib "${FAIL}" "${INPUT}" -o "${out}.fail"
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(rc EQUAL 0 OR NOT e MATCHES "injected failure at drawable" OR EXISTS "${out}.fail")
  message(FATAL_ERROR "mid-stream failure not reported, or an output file was left (exit ${rc}):\n${e}")
endif()

# Build a tiny consumer project (./consumer) against the INSTALLED package in
# a fresh directory and run it (CTest helper, see ../CMakeLists.txt):
#   cmake -DMODE=cmake|pkgconfig -DPREFIX=<install prefix> -DSRC=<consumer dir>
#         -DWORK=<scratch dir> -DCC=<C compiler> -DDATA=<trace> -P consumer.cmake
# MODE=cmake: configure with find_package(slog2) (-DCMAKE_PREFIX_PATH=PREFIX),
#   build `consumer` (slog2::slog2) and `consumer_static` (slog2::slog2_static).
# MODE=pkgconfig: compile with `pkg-config --cflags --libs slog2`
#   (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig).
# Each executable must run and report the first record of DATA (a category).

set(dir "${WORK}/consumer-${MODE}")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")
file(COPY "${SRC}/main.c" "${SRC}/CMakeLists.txt" DESTINATION "${dir}")

function(must_succeed what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${o}${e}")
  endif()
endfunction()

if(MODE STREQUAL "cmake")
  must_succeed("configure" ${CMAKE_COMMAND} -S "${dir}" -B "${dir}/build" "-DCMAKE_PREFIX_PATH=${PREFIX}"
               "-DCMAKE_C_COMPILER=${CC}")
  must_succeed("build" ${CMAKE_COMMAND} --build "${dir}/build")
  set(exes "${dir}/build/consumer" "${dir}/build/consumer_static")
elseif(MODE STREQUAL "pkgconfig")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs slog2 RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  ERROR_VARIABLE e OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs slog2 failed:\n${e}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  must_succeed("compile" "${CC}" "${dir}/main.c" -o "${dir}/consumer" ${flags})
  set(exes "${dir}/consumer")
else()
  message(FATAL_ERROR "MODE must be cmake or pkgconfig")
endif()

foreach(exe ${exes})
  # pkg-config gives no run path: find libslog2.so through LD_LIBRARY_PATH.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${PREFIX}/lib" "${exe}" "${DATA}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0 OR NOT o MATCHES "first record kind 3")
    message(FATAL_ERROR "${exe} failed (${rc}):\n${o}${e}")
  endif()
  message(STATUS "${exe}: ${o}")
endforeach()
file(REMOVE_RECURSE "${dir}")

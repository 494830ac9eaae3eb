# Shared by readers/otf2/CMakeLists.txt (build + install) and the tests
# (readers/otf2/tests, pulled in by capi-tests): finds libotf2 and defines
#   slog2_add_otf2_plugin(<target> <dir holding trace_API.h>)
# which builds the TRACE-API plugin as lib<...>/libslog2-otf2.so.
# Sets SLOG2_OTF2_FOUND (and says clearly why not when it is not found).
set(SLOG2_OTF2_DIR "${CMAKE_CURRENT_LIST_DIR}/..")
set(SLOG2_OTF2_FOUND OFF)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(OTF2 QUIET IMPORTED_TARGET otf2>=2.0)
endif()
find_package(Python3 QUIET COMPONENTS Interpreter)
if(NOT OTF2_FOUND)
  message(STATUS "OTF2 plugin: libotf2 NOT found (pkg-config otf2 >= 2.0): libslog2-otf2.so is not built "
                 "(Debian: apt-get install libopen-trace-format2-dev)")
elseif(NOT Python3_Interpreter_FOUND)
  message(STATUS "OTF2 plugin: python3 NOT found (needed to generate callbacks): libslog2-otf2.so is not built")
else()
  find_file(SLOG2_OTF2_CALLBACKS_H otf2/OTF2_GlobalEvtReaderCallbacks.h
            HINTS ${OTF2_INCLUDE_DIRS} ${OTF2_INCLUDEDIR} NO_CACHE)
  if(NOT SLOG2_OTF2_CALLBACKS_H)
    message(STATUS "OTF2 plugin: otf2/OTF2_GlobalEvtReaderCallbacks.h NOT found: libslog2-otf2.so is not built")
  else()
    set(SLOG2_OTF2_FOUND ON)
    message(STATUS "OTF2 plugin: libotf2 ${OTF2_VERSION} found: building libslog2-otf2.so")
  endif()
endif()

function(slog2_add_otf2_plugin target trace_include)
  set(gendir "${CMAKE_CURRENT_BINARY_DIR}/${target}_gen")
  add_custom_command(OUTPUT "${gendir}/otf2_unsupported.h"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${gendir}"
    COMMAND ${Python3_EXECUTABLE} "${SLOG2_OTF2_DIR}/gen_unsupported.py" "${SLOG2_OTF2_CALLBACKS_H}"
            "${gendir}/otf2_unsupported.h"
    DEPENDS "${SLOG2_OTF2_DIR}/gen_unsupported.py" "${SLOG2_OTF2_CALLBACKS_H}"
    COMMENT "generating the OTF2 record-kind callbacks for ${target}")
  set(dir "${SLOG2_OTF2_DIR}")
  add_library(${target} SHARED "${dir}/otf2_trace.c" "${dir}/otf2_defs.c" "${dir}/otf2_events.c"
              "${dir}/otf2_grouped.c" "${dir}/otf2_spill.c" "${dir}/otf2_errors.c"
              "${dir}/otf2_msgq.c" "${dir}/otf2_umap.c" "${gendir}/otf2_unsupported.h")
  target_include_directories(${target} PRIVATE "${trace_include}" "${gendir}")
  target_link_libraries(${target} PRIVATE PkgConfig::OTF2)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME slog2-otf2 C_STANDARD 99 C_STANDARD_REQUIRED ON
                        C_EXTENSIONS OFF C_VISIBILITY_PRESET default)
endfunction()

# Generates the man page ptir(1) from the binary itself, at build time (cmake/install.cmake):
#   cmake -DPTIR=path/to/ptir -DOUT=path/to/ptir.1.gz -P ptirManPage.cmake
# NAME and SYNOPSIS, then DESCRIPTION = `ptir --help`, one COMMANDS subsection per command that
# `ptir --help` lists (its `ptir COMMAND --help`), and VERSION = `ptir --version`; every text is shown
# verbatim (.nf), escaped for roff. Written gzip-compressed (gzip -9n), as Debian installs man pages.
cmake_minimum_required(VERSION 3.24)
if(NOT PTIR OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DPTIR=ptir -DOUT=ptir.1.gz -P ptirManPage.cmake")
endif()

function(run_ptir out_var)
  execute_process(COMMAND ${PTIR} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ptir ${ARGN} failed (${rc}): ${err}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Verbatim text for roff: backslashes as \e, '-' as \- (a real minus/hyphen in options), and a line
# that starts with '.' or "'" protected by \&.
function(roff_verbatim out_var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

run_ptir(help --help)
run_ptir(version --version)
string(REGEX MATCH "^ptir ([0-9.]+)" _ "${version}")
set(number "${CMAKE_MATCH_1}")

# The command names: the lines "  NAME  summary" after "commands:" in `ptir --help`, up to a blank line.
set(commands "")
set(in_list FALSE)
string(REPLACE "\n" ";" lines "${help}")
foreach(line IN LISTS lines)
  if(line STREQUAL "commands:")
    set(in_list TRUE)
  elseif(in_list AND line MATCHES "^  ([a-z][a-z-]*) ")
    list(APPEND commands "${CMAKE_MATCH_1}")
  elseif(in_list AND line STREQUAL "")
    set(in_list FALSE)
  endif()
endforeach()
if(NOT commands)
  message(FATAL_ERROR "no command found in 'ptir --help'")
endif()

roff_verbatim(description "${help}")
set(page ".\\\" Generated from `ptir --help` by cmake/ptirManPage.cmake; do not edit.\n")
string(APPEND page ".TH PTIR 1 \"\" \"ptir ${number}\" \"User Commands\"\n"
                   ".SH NAME\nptir \\- PTIR tensor\\-IR toolkit: text format, verifier, interpreter, rewrite "
                   "driver, Z3\\-backed checker and pattern prover\n"
                   ".SH SYNOPSIS\n.B ptir\n\\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n.B ptir\n\\-\\-help | \\-\\-version\n"
                   ".SH DESCRIPTION\n${description}.SH COMMANDS\n")
foreach(c IN LISTS commands)
  run_ptir(text ${c} --help)
  roff_verbatim(body "${text}")
  string(APPEND page ".SS ptir ${c}\n${body}")
endforeach()
roff_verbatim(version_text "${version}")
string(APPEND page ".SH VERSION\n${version_text}"
                   ".SH SEE ALSO\n/usr/share/doc/ptir/ (embedding.md, ci.md, rules.md and the out\\-of\\-tree "
                   "plugin example)\n")

get_filename_component(dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
string(REGEX REPLACE "\\.gz$" "" plain "${OUT}")
file(WRITE "${plain}" "${page}")
execute_process(COMMAND gzip -9nf "${plain}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}")
  message(FATAL_ERROR "gzip -9n ${plain} failed")
endif()

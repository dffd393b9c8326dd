# cmake -DFUZZER=<target> -DSEED_CORPUS=<dir> -DWORK_DIR=<dir> [-DFUZZER_ARGS=<list>] -P RunFuzzer.cmake
#
# Runs a libFuzzer target on a fresh copy of its seed corpus in WORK_DIR (libFuzzer adds the
# inputs it finds to the corpus it is given, and the source tree must stay untouched). Fails when
# the fuzzer does: a crash, a sanitizer report, a leak, a timeout or running out of memory; the
# input that did it is left in WORK_DIR/artifacts/.
foreach(variable FUZZER SEED_CORPUS WORK_DIR)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "RunFuzzer.cmake: ${variable} is not set")
    endif()
endforeach()
if(NOT EXISTS ${FUZZER})
    message(FATAL_ERROR "RunFuzzer.cmake: ${FUZZER} does not exist (build first)")
endif()

file(REMOVE_RECURSE ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
file(GLOB seeds ${SEED_CORPUS}/*)
file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)

execute_process(
    COMMAND ${FUZZER} ${FUZZER_ARGS} -artifact_prefix=${WORK_DIR}/artifacts/ ${WORK_DIR}/corpus
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "${FUZZER} failed (${result}); see ${WORK_DIR}/artifacts/")
endif()

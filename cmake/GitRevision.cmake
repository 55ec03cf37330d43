# The git revision recorded in the environment block of every log.
set(OLV2_GIT_REVISION "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE OLV2_GIT_REVISION_OUT
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE OLV2_GIT_RESULT)
  if(OLV2_GIT_RESULT EQUAL 0 AND OLV2_GIT_REVISION_OUT)
    set(OLV2_GIT_REVISION ${OLV2_GIT_REVISION_OUT})
  endif()
endif()

# cmake -DTOOL=<generator> -DDOC=<committed file> -P CompareGenerated.cmake
execute_process(COMMAND ${TOOL} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TOOL} failed (${rc})")
endif()
file(READ ${DOC} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${DOC} is out of date: regenerate it with ${TOOL} > ${DOC}")
endif()

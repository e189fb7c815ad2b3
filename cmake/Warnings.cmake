# Warnings on everywhere; errors when TL_WERROR is set (CI and `make test`).
function(tl_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
    -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2)
  if(TL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(TL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(TL_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

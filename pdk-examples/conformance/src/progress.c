/* test_tool_with_progress: progress 0, 50, 100 of 100, ~50 ms apart (sent when the caller gave a
 * progressToken; without one the tool runs the same). */
#include "client_common.h"

TG_EXPORT("tool_with_progress") int tool_with_progress(void) {
  tg_mcp_progress(0, 100, NULL);
  sleep_ms(50);
  tg_mcp_progress(50, 100, NULL);
  sleep_ms(50);
  tg_mcp_progress(100, 100, NULL);
  const char *done = "Tool with progress executed successfully";
  return reply_text("", done, strlen(done));
}

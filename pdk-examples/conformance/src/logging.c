/* test_tool_with_logging: three info log lines to the client, ~50 ms apart. */
#include "client_common.h"

TG_EXPORT("tool_with_logging") int tool_with_logging(void) {
  tg_mcp_log(TG_MCP_INFO, "Tool execution started");
  sleep_ms(50);
  tg_mcp_log(TG_MCP_INFO, "Tool processing data");
  sleep_ms(50);
  tg_mcp_log(TG_MCP_INFO, "Tool execution completed");
  const char *done = "Tool with logging executed successfully";
  return reply_text("", done, strlen(done));
}

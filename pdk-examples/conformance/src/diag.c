/* test_logging_tool: three info lines through toolgate:mcp.log (capabilities.mcp: logging), then
 * "Logging test done". The lines reach the client at the level it asked for (info and above when
 * it set none; under 2026-07-28 only when the request names a level). */
#include "client_common.h"

TG_EXPORT("logging_tool") int logging_tool(void) {
  tg_mcp_log(TG_MCP_INFO, "Logging test: first line");
  tg_mcp_log(TG_MCP_INFO, "Logging test: second line");
  tg_mcp_log(TG_MCP_INFO, "Logging test: third line");
  return reply_text("", "Logging test done", strlen("Logging test done"));
}

/*
 * The reference tools of the MCP conformance suite (@modelcontextprotocol/conformance), one export
 * each. Their manifests say `output.render: mcp`, so each returns an MCP result itself:
 * {"content": [blocks...], "structuredContent"?: {...}} with any content kind.
 */
#include "toolgate.h"

/* A 1x1 red PNG and a one-sample 8 kHz WAV, base64. */
#define RED_PIXEL_PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
#define ONE_SAMPLE_WAV "UklGRiUAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQEAAACA"

static int reply(const char *json) {
  tg_output_str(json);
  return 0;
}

TG_EXPORT("simple_text") int simple_text(void) {
  return reply("{\"content\":[{\"type\":\"text\",\"text\":\"This is a simple text response for testing.\"}]}");
}

TG_EXPORT("image_content") int image_content(void) {
  return reply("{\"content\":[{\"type\":\"image\",\"data\":\"" RED_PIXEL_PNG "\",\"mimeType\":\"image/png\"}]}");
}

TG_EXPORT("audio_content") int audio_content(void) {
  return reply("{\"content\":[{\"type\":\"audio\",\"data\":\"" ONE_SAMPLE_WAV "\",\"mimeType\":\"audio/wav\"}]}");
}

TG_EXPORT("embedded_resource") int embedded_resource(void) {
  return reply("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"test://embedded-resource\","
               "\"mimeType\":\"text/plain\",\"text\":\"This is an embedded resource content.\"}}]}");
}

TG_EXPORT("multiple_content_types") int multiple_content_types(void) {
  return reply("{\"content\":["
               "{\"type\":\"text\",\"text\":\"Multiple content types test:\"},"
               "{\"type\":\"image\",\"data\":\"" RED_PIXEL_PNG "\",\"mimeType\":\"image/png\"},"
               "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://mixed-content-resource\","
               "\"mimeType\":\"application/json\",\"text\":\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}]}");
}

TG_EXPORT("error_handling") int error_handling(void) {
  return tg_error("This tool intentionally returns an error for testing");
}

TG_EXPORT("json_schema_2020_12") int json_schema_2020_12(void) {
  return reply("{\"content\":[{\"type\":\"text\",\"text\":\"JSON Schema 2020-12 tool called\"}]}");
}

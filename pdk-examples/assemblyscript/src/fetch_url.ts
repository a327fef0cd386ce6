// fetch_url: GET a page from a host the manifest allows and return status, a few headers and the
// body as text, cut at max_bytes on a character boundary. The host checks every hop and caps size.
import { config, fail, httpRequest, inputText, outputText, utf8InvalidAt } from "../lib/toolgate";
import { JType, JValue, JsonParser, argNumber, argString, parseArgs } from "../lib/json";

// Headers worth showing a model; the rest (cookies, tracing ids) are noise or sensitive.
const KEEP_HEADERS = ["content-type", "content-length", "last-modified", "etag", "location", "cache-control"];

export function fetch_url(): i32 {
  const input = inputText();
  if (input === null) return 1;
  const err: string[] = [""];
  const args = parseArgs(input, err);
  if (args === null) return fail(err[0]);
  const url = argString(args, "url", true, err);
  if (url === null) return fail(err[0]);
  const maxBytes = argNumber(args, "max_bytes", 65536, err);
  if (isNaN(maxBytes)) return fail(err[0]);
  if (maxBytes < 1 || maxBytes > 1048576 || maxBytes != Math.trunc(maxBytes)) {
    return fail("argument 'max_bytes' must be an integer from 1 to 1048576");
  }
  const lower = url.toLowerCase();
  if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
    return fail("argument 'url' must be an absolute http:// or https:// URL");
  }
  if (url.length > 2048) return fail("argument 'url' is longer than 2048 characters");

  // The User-Agent comes from the manifest's config, so an operator can name their deployment.
  const ua = config("user_agent");
  const headers0 = JValue.obj().set("Accept", JValue.str("text/*, application/json;q=0.9, */*;q=0.1"));
  if (ua !== null && ua.length > 0) headers0.set("User-Agent", JValue.str(ua));
  const req = JValue.obj().set("url", JValue.str(url)).set("method", JValue.str("GET")).set("headers", headers0).toJson();
  const res = httpRequest(req, null);
  if (res.status == 0) return fail("the request to " + url + " failed or was refused by the host");

  const headers = JValue.obj();
  let contentType = "";
  if (res.headersJson.length > 0) {
    const h = new JsonParser(res.headersJson).parse();
    if (h !== null && h.type == JType.Obj) {
      for (let i = 0; i < h.keys.length; i++) {
        const k = h.keys[i].toLowerCase();
        const v = h.items[i];
        if (v.type != JType.Str || !KEEP_HEADERS.includes(k)) continue;
        headers.set(k, JValue.str(v.s));
        if (k == "content-type") contentType = v.s.toLowerCase();
      }
    }
  }

  // Cut on a UTF-8 boundary so the text stays valid; then refuse bodies that are not text.
  const total = res.body.length;
  let n = total < <i32>maxBytes ? total : <i32>maxBytes;
  while (n > 0 && n < total && (res.body[n] & 0xc0) == 0x80) n--;
  const body = res.body.subarray(0, n);
  const bad = utf8InvalidAt(body);
  if (bad >= 0 || body.includes(0)) {
    return fail("the response from " + url + " is not UTF-8 text (content-type '" + contentType + "'); fetch_url only returns text");
  }
  const out = JValue.obj()
    .set("url", JValue.str(url))
    .set("status", JValue.num(res.status))
    .set("ok", JValue.bool(res.status >= 200 && res.status < 300))
    .set("headers", headers)
    .set("text", JValue.str(String.UTF8.decode(body.slice().buffer)))
    .set("bytes", JValue.num(total))
    .set("truncated", JValue.bool(n < total));
  outputText(out.toJson());
  return 0;
}

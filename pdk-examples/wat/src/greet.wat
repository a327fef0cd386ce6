;; greet: the classic first tool, written by hand in WebAssembly text.
;; Input  {"name": "<string>"}  ->  output {"greeting": "Hello, <name>!"}
;; The name's JSON escapes are copied through unchanged, so the output is valid JSON without a
;; decoder; the input is checked to be UTF-8 and exactly that shape, and anything else is an error.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))

  (memory 1)
  ;; 0..255: messages; 1024..: the input; 33792..: the output.
  (data (i32.const 0) "{\"greeting\":\"Hello, ")                       ;; 0, 20 bytes
  (data (i32.const 32) "!\"}")                                         ;; 32, 3 bytes
  (data (i32.const 48) "the input is not valid UTF-8")                 ;; 48, 28 bytes
  (data (i32.const 80) "the arguments must be {\"name\": string}")     ;; 80, 38 bytes
  (data (i32.const 128) "the input is larger than 32 KiB")             ;; 128, 31 bytes
  (data (i32.const 160) "argument 'name' must not be empty")           ;; 160, 33 bytes
  (data (i32.const 200) "\"name\"")                                    ;; 200, 6 bytes

  (global $IN i32 (i32.const 1024))
  (global $OUT i32 (i32.const 33792))
  (global $MAX i32 (i32.const 32768))

  ;; Copies len bytes at ptr into a new Extism block and returns its offset.
  (func $to_extism (param $ptr i32) (param $len i32) (result i64)
    (local $h i64) (local $i i32)
    (local.set $h (call $alloc (i64.extend_i32_u (local.get $len))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $h) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (local.get $h))

  (func $fail (param $ptr i32) (param $len i32) (result i32)
    (call $error_set (call $to_extism (local.get $ptr) (local.get $len)))
    (i32.const 1))

  ;; 1 when in[0..n) is valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
  (func $utf8_ok (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $c i32) (local $need i32) (local $cp i32) (local $min i32) (local $k i32) (local $cc i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $ok
      (loop $next
        (br_if $ok (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $c) (i32.const 0x80))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $next)))
        (if (i32.and (i32.ge_u (local.get $c) (i32.const 0xc2)) (i32.le_u (local.get $c) (i32.const 0xdf)))
          (then (local.set $need (i32.const 2)) (local.set $min (i32.const 0x80)) (local.set $cp (i32.and (local.get $c) (i32.const 0x1f))))
          (else
            (if (i32.and (i32.ge_u (local.get $c) (i32.const 0xe0)) (i32.le_u (local.get $c) (i32.const 0xef)))
              (then (local.set $need (i32.const 3)) (local.set $min (i32.const 0x800)) (local.set $cp (i32.and (local.get $c) (i32.const 0x0f))))
              (else
                (if (i32.and (i32.ge_u (local.get $c) (i32.const 0xf0)) (i32.le_u (local.get $c) (i32.const 0xf4)))
                  (then (local.set $need (i32.const 4)) (local.set $min (i32.const 0x10000)) (local.set $cp (i32.and (local.get $c) (i32.const 0x07))))
                  (else (return (i32.const 0))))))))
        (if (i32.gt_u (i32.add (local.get $p) (local.get $need)) (local.get $end)) (then (return (i32.const 0))))
        (local.set $k (i32.const 1))
        (block $cont_done
          (loop $cont
            (br_if $cont_done (i32.ge_u (local.get $k) (local.get $need)))
            (local.set $cc (i32.load8_u (i32.add (local.get $p) (local.get $k))))
            (if (i32.ne (i32.and (local.get $cc) (i32.const 0xc0)) (i32.const 0x80)) (then (return (i32.const 0))))
            (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 6)) (i32.and (local.get $cc) (i32.const 0x3f))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $cont)))
        (if (i32.lt_u (local.get $cp) (local.get $min)) (then (return (i32.const 0))))
        (if (i32.gt_u (local.get $cp) (i32.const 0x10ffff)) (then (return (i32.const 0))))
        (if (i32.and (i32.ge_u (local.get $cp) (i32.const 0xd800)) (i32.le_u (local.get $cp) (i32.const 0xdfff)))
          (then (return (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (local.get $need)))
        (br $next)))
    (i32.const 1))

  ;; 1 when the four bytes at p are hex digits.
  (func $hex4 (param $p i32) (result i32)
    (local $k i32) (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $k) (i32.const 4)))
        (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $k))))
        (if (i32.eqz (i32.or
              (i32.and (i32.ge_u (local.get $c) (i32.const 0x30)) (i32.le_u (local.get $c) (i32.const 0x39)))
              (i32.and (i32.ge_u (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61))
                       (i32.le_u (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x66)))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; Index of the first non-whitespace byte at or after p (never past end).
  (func $skip_ws (param $p i32) (param $end i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $done (i32.eqz
          (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09)))
                  (i32.or (i32.eq (local.get $c) (i32.const 0x0a)) (i32.eq (local.get $c) (i32.const 0x0d))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  (func $greet (export "greet") (result i32)
    (local $n i32) (local $i i32) (local $p i32) (local $end i32) (local $start i32) (local $c i32) (local $o i32)
    ;; Read the input into memory.
    (if (i64.gt_u (call $input_length) (i64.extend_i32_u (global.get $MAX)))
      (then (return (call $fail (i32.const 128) (i32.const 31)))))
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (block $read_done
      (loop $read
        (br_if $read_done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (global.get $IN) (local.get $i)) (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $read)))
    (if (i32.eqz (call $utf8_ok (global.get $IN) (local.get $n)))
      (then (return (call $fail (i32.const 48) (i32.const 28)))))

    ;; Expect exactly: { "name" : "<string>" }
    (local.set $end (i32.add (global.get $IN) (local.get $n)))
    (local.set $p (call $skip_ws (global.get $IN) (local.get $end)))
    (block $bad
      (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
      (br_if $bad (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x7b)))
      (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
      ;; the key "name": compare 6 bytes
      (br_if $bad (i32.gt_u (i32.add (local.get $p) (i32.const 6)) (local.get $end)))
      (local.set $i (i32.const 0))
      (block $key_ok
        (loop $key
          (br_if $key_ok (i32.ge_u (local.get $i) (i32.const 6)))
          (br_if $bad (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                              (i32.load8_u (i32.add (i32.const 200) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $key)))
      (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 6)) (local.get $end)))
      (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
      (br_if $bad (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x3a)))
      (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
      (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
      (br_if $bad (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x22)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $start (local.get $p))
      ;; The string body: stop at the closing quote; an escape covers the next byte too.
      (block $str_done
        (loop $str
          (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
          (local.set $c (i32.load8_u (local.get $p)))
          (br_if $str_done (i32.eq (local.get $c) (i32.const 0x22)))
          (br_if $bad (i32.lt_u (local.get $c) (i32.const 0x20)))
          (if (i32.eq (local.get $c) (i32.const 0x5c))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
              (local.set $c (i32.load8_u (local.get $p)))
              ;; only the JSON escapes: " \ / b f n r t u
              (br_if $bad (i32.eqz
                (i32.or (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
                                (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
                        (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e)))
                                (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74)))
                                        (i32.eq (local.get $c) (i32.const 0x75)))))))
              ;; \u needs four hex digits after it
              (if (i32.eq (local.get $c) (i32.const 0x75))
                (then
                  (br_if $bad (i32.gt_u (i32.add (local.get $p) (i32.const 5)) (local.get $end)))
                  (br_if $bad (i32.eqz (call $hex4 (i32.add (local.get $p) (i32.const 1)))))
                  (local.set $p (i32.add (local.get $p) (i32.const 4)))))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $str)))
      ;; now p is at the closing quote; name = [start, p)
      (local.set $i (local.get $p))
      (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
      (br_if $bad (i32.ge_u (local.get $p) (local.get $end)))
      (br_if $bad (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x7d)))
      (br_if $bad (i32.ne (call $skip_ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)) (local.get $end)))
      (if (i32.eq (local.get $i) (local.get $start))
        (then (return (call $fail (i32.const 160) (i32.const 33)))))
      ;; Output: prefix + name (still escaped) + suffix.
      (memory.copy (global.get $OUT) (i32.const 0) (i32.const 20))
      (local.set $o (i32.add (global.get $OUT) (i32.const 20)))
      (memory.copy (local.get $o) (local.get $start) (i32.sub (local.get $i) (local.get $start)))
      (local.set $o (i32.add (local.get $o) (i32.sub (local.get $i) (local.get $start))))
      (memory.copy (local.get $o) (i32.const 32) (i32.const 3))
      (local.set $o (i32.add (local.get $o) (i32.const 3)))
      (local.set $n (i32.sub (local.get $o) (global.get $OUT)))
      (call $output_set (call $to_extism (global.get $OUT) (local.get $n)) (i64.extend_i32_u (local.get $n)))
      (return (i32.const 0)))
    (call $fail (i32.const 80) (i32.const 38)))
)

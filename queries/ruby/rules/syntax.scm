; Ruby forms Roundhouse's ingest rejects (rules.md, `syntax.*`). Each capture is named after its rule id:
; the capture's node is the exact span reported. Checks a query cannot express (a class variable written
; inside a method, a class defined inside a method) are in `roundhouse::syntax_rules`.

; Shell commands -------------------------------------------------------------------------------------

(subshell) @syntax.backtick-command

; Loops and patterns ---------------------------------------------------------------------------------

(for) @syntax.for-loop

[(case_match) (test_pattern) (match_pattern)] @syntax.pattern-matching

; `/(?<y>\d+)/ =~ s` writes locals from named captures.
((binary left: (regex) @syntax.regex-named-capture operator: "=~")
 (#match? @syntax.regex-named-capture "\\(\\?<[A-Za-z_]"))

; `begin … end while c` runs its body before testing.
(while_modifier body: (begin)) @syntax.do-while
(until_modifier body: (begin)) @syntax.do-while

; `if (a == 1)..(b == 2)`: a range as a condition is a flip-flop, with hidden state between tests.
[(if condition: (range) @syntax.flip-flop)
 (unless condition: (range) @syntax.flip-flop)
 (while condition: (range) @syntax.flip-flop)
 (until condition: (range) @syntax.flip-flop)
 (if_modifier condition: (range) @syntax.flip-flop)
 (unless_modifier condition: (range) @syntax.flip-flop)
 (conditional condition: (range) @syntax.flip-flop)]
[(if condition: (parenthesized_statements (range) @syntax.flip-flop))
 (if_modifier condition: (parenthesized_statements (range) @syntax.flip-flop))
 (conditional condition: (parenthesized_statements (range) @syntax.flip-flop))]

; Variables and names ----------------------------------------------------------------------------------

(assignment left: (global_variable)) @syntax.global-variable-write
(operator_assignment left: (global_variable)) @syntax.global-variable-write

(alias) @syntax.alias-keyword

(undef) @syntax.undef

[(rational) (complex)] @syntax.rational-imaginary

[(begin_block) (end_block)] @syntax.begin-end-block

; `class (expr)::Foo`
(class name: (scope_resolution scope: [(parenthesized_statements) (call)]) @syntax.dynamic-class-name)

; Arguments and parameters ------------------------------------------------------------------------------

[(forward_parameter) (forward_argument)] @syntax.argument-forwarding

; Only the forwarding is rejected: an anonymous `**` parameter that is never passed on compiles.
((hash_splat_argument) @syntax.anonymous-keyword-forwarding
 (#eq? @syntax.anonymous-keyword-forwarding "**"))

; `&method(:f)`, `&proc { }`, `&self.blk`: only `&:sym` and `&local` survive.
(block_argument (call)) @syntax.block-argument-form

(block_parameters
  [(destructured_parameter) (optional_parameter) (splat_parameter) (keyword_parameter) (block_parameter) (hash_splat_parameter)] @syntax.block-parameter-form)

; `a.b, c = 1, 2`
(left_assignment_list (call) @syntax.multi-assign-target)

; `a, *b, c = arr`, `*a, b = arr`: a target after the splat
(left_assignment_list (rest_assignment) . (_)) @syntax.multi-assign-target

; `m[i, j] += 1`
(operator_assignment
  left: (element_reference object: (_) . (_) . (_)) @syntax.multi-index-assign)

; Strings and regexps ------------------------------------------------------------------------------------

; `syntax.regex-once-flag` has no pattern: Roundhouse accepts `/#{x}/o` (it drops the flag).

((interpolation) @syntax.empty-interpolation
 (#eq? @syntax.empty-interpolation "#{}"))

((interpolation) @syntax.embedded-variable
 (#match? @syntax.embedded-variable "^#[@$]"))

; `defined?(A::B)`, `defined?(a.b)`, `defined?(Foo)`, `defined?(@@x)`: only a bare local or method
; name or an instance variable is supported (`!x` and `not x` are unary too: the operator decides).
((unary operator: "defined?") @syntax.defined-path
 (#not-match? @syntax.defined-path "^defined\\?\\s*\\(?\\s*@?[a-z_][A-Za-z0-9_]*[?!]?\\s*\\)?$"))
(unary operator: "defined?"
  operand: [(super) (yield) (parenthesized_statements [(super) (yield)])]) @syntax.defined-path

; `spinel.dynamic-dispatch` is found by the Rust walk (`syntax_rules::ancestry_checks`): as patterns
; over every call it cost a quarter of this query's compile time and a predicate run on every call.

files = `ls`
#       ^ syntax.backtick-command
listing = %x(ls -la)
#         ^ syntax.backtick-command
safe = "`ls` in a string"
#       ^ !syntax.backtick-command
for item in items do puts item end
# <- syntax.for-loop
items.each { |item| puts item }
#            ^ !syntax.for-loop !syntax.block-parameter-form
case value
# <- syntax.pattern-matching
in [x, y] then x
end
value in Integer
# <- syntax.pattern-matching
value => Integer
# <- syntax.pattern-matching
if /(?<year>\d+)/ =~ date then year end
#  ^ syntax.regex-named-capture
if /(\d+)/ =~ date then $1 end
#  ^ !syntax.regex-named-capture
begin
  step
end while more?
# <- syntax.do-while
step while more?
# <- !syntax.do-while
$stdout_copy = $stdout
# <- syntax.global-variable-write
copy = $stdout
#      ^ !syntax.global-variable-write
alias new_name old_name
# <- syntax.alias-keyword
alias_method :new_name, :old_name
# <- !syntax.alias-keyword
undef old_name
# <- syntax.undef
half = 1/2r
#        ^ syntax.rational-imaginary
imaginary = 2i
#           ^ syntax.rational-imaginary
BEGIN { setup }
# <- syntax.begin-end-block
def forward(...) = target(...)
#           ^ !syntax.argument-forwarding
#                         ^ syntax.argument-forwarding
def keywords(**) = target(**)
#            ^ !syntax.anonymous-keyword-forwarding
#                         ^ syntax.anonymous-keyword-forwarding
def initialize(message, **); end
#                       ^ !syntax.anonymous-keyword-forwarding
def named(**opts) = target(**opts)
#         ^ !syntax.anonymous-keyword-forwarding
#                          ^ !syntax.anonymous-keyword-forwarding
items.map(&method(:format))
#          ^ syntax.block-argument-form
items.map(&:to_s)
#          ^ !syntax.block-argument-form
formatter = ->(item) { item.to_s }
items.map(&formatter)
#          ^ !syntax.block-argument-form
items.map(&format_method)
#          ^ syntax.block-argument-form
pairs.each { |(key, value)| key }
#             ^ syntax.block-parameter-form
pairs.each { |key, value = 1| key }
#                  ^ syntax.block-parameter-form
pairs.each { |*rest| rest }
#             ^ syntax.block-parameter-form
pairs.each { |key, value| key }
#             ^ !syntax.block-parameter-form
post.title, count = "x", 1
# <- syntax.multi-assign-target
title, count = "x", 1
# <- !syntax.multi-assign-target
first, *middle, last = words
# <- syntax.multi-assign-target
first, *rest = words
# <- !syntax.multi-assign-target
grid[row, col] += 1
# <- syntax.multi-index-assign
grid[row] += 1
# <- !syntax.multi-index-assign
pattern = /#{word}/o
#         ^ !syntax.regex-once-flag
pattern = /#{word}/u
#         ^ syntax.regex-once-flag
puts "found" if /error/
#               ^ syntax.regex-condition
puts "found" if line =~ /error/
#                       ^ !syntax.regex-condition
private def hidden = 1
#       ^ syntax.def-in-expression
hidden = __FILE__ + __dir__
#        ^ syntax.magic-constant
#                   ^ !syntax.magic-constant
text = "a#{}b"
#        ^ syntax.empty-interpolation
text = "a#{name}b"
#        ^ !syntax.empty-interpolation !syntax.embedded-variable
text = "#@name"
#       ^ syntax.embedded-variable
known = defined?(Foo::Bar)
#       ^ syntax.defined-path
known = defined?(Foo)
#       ^ syntax.defined-path
known = defined?(post.title)
#       ^ syntax.defined-path
known = defined?(@@count) || defined?(super)
#       ^ syntax.defined-path
#                            ^ syntax.defined-path
known = defined?(title) || (defined? @post) || defined?(admin?)
#       ^ !syntax.defined-path
#                           ^ !syntax.defined-path
#                                              ^ !syntax.defined-path
visible = !request.post? && -posts.count < 0 && (not post.draft?)
#         ^ !syntax.defined-path
#                           ^ !syntax.defined-path
#                                                ^ !syntax.defined-path
lines.each { |l| puts l if (l == "BEGIN")..(l == "END") }
#                          ^ syntax.flip-flop
if (i == 3)..(i == 5) then puts i end
#  ^ syntax.flip-flop
puts(x) if ((a == 1)..(b == 2))
#           ^ syntax.flip-flop
window = (first..last)
#        ^ !syntax.flip-flop
if (1..5).cover?(n) then n end
#  ^ !syntax.flip-flop

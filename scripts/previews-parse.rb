# Whether every preview `switchyard preview APP --out DIR` wrote parses as Ruby, as `ruby -c` would
# say, in one process: `ruby scripts/previews-parse.rb DIR`. Prints each one that does not, with the
# parser's first message, then the count; exits 1 when any does not parse.
dir = ARGV.fetch(0) { abort "usage: ruby scripts/previews-parse.rb DIR" }
files = Dir.glob(File.join(dir, "**", "*.rb")).sort
failed = 0
files.each do |file|
  source = File.read(file, encoding: "UTF-8")
  begin
    $VERBOSE = nil
    RubyVM::InstructionSequence.compile(source, file)
  rescue SyntaxError => e
    failed += 1
    first = e.message.lines.find { |l| l.include?(":") } || e.message
    puts "#{file.delete_prefix(dir).delete_prefix("/")}: #{first.strip.delete_prefix(file + ":")}"
  end
end
puts "#{files.size - failed} of #{files.size} previews parse"
exit(failed.zero? ? 0 : 1)

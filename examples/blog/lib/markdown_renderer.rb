class MarkdownRenderer
  EXTENSIONS = %i[table strikethrough autolink].freeze

  def initialize(text)
    @text = text.to_s
  end

  def to_html
    Commonmarker.to_html(@text, options: { extension: EXTENSIONS.index_with(true) })
  end
end

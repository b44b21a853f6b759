module PostsHelper
  def status_badge(post)
    tag.span(post.status.humanize, class: "badge badge-#{post.status}")
  end

  def render_markdown(text)
    MarkdownRenderer.new(text).to_html.html_safe
  end
end

class PostsController < ApplicationController
  def create
    @post = Post.new(post_params)
#   ^ ivar.write
    redirect_to post_path(@post), notice: "Created"
#               ^ route_helper.name
#                         ^ ivar.reference
    redirect_to posts_url
#               ^ route_helper.name
    render :new, status: :unprocessable_entity
#   ^ render.call render.method helper.name
    request.path
#           ^ !route_helper.name
  end

  def post_params = params.expect(post: [:title])
#                   ^ !helper.name

  def index_path
#     ^ !route_helper.name
  end
end

class CommentsController < ApplicationController
  before_action :set_post

  def create
    @comment = @post.comments.build(comment_params.merge(user: current_user))
    if @comment.save
      redirect_to post_path(@post, anchor: "comments")
    else
      render "posts/show", status: :unprocessable_entity
    end
  end

  def destroy
    @post.comments.find(params[:id]).destroy
    redirect_to @post, status: :see_other
  end

  private

  def set_post
    @post = Post.find(params[:post_id])
  end

  def comment_params
    params.expect(comment: [:body])
  end
end

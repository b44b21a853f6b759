module Admin
  class PostsController < ApplicationController
    layout "admin"

    def index
      @posts = Post.order(created_at: :desc)
    end

    def destroy
      Post.find(params[:id]).destroy
      redirect_to admin_posts_path, status: :see_other
    end
  end
end

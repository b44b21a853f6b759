class NotifySubscribersJob < ApplicationJob
  queue_as :default

  def perform(post_id)
    post = Post.find(post_id)
    Rails.logger.info("Notifying subscribers of #{post.title}")
  end
end

class Comment < ApplicationRecord
  belongs_to :post, counter_cache: true, touch: true
  belongs_to :user

  validates :body, presence: true, length: { maximum: 2_000 }

  scope :recent, -> { order(created_at: :desc).limit(10) }
end

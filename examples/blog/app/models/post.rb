class Post < ApplicationRecord
  include Publishable

  belongs_to :author, class_name: "User"
  has_many :comments, -> { order(created_at: :asc) }, dependent: :destroy
  has_many :taggings, dependent: :destroy
  has_many :tags, through: :taggings

  enum :status, { draft: 0, review: 1, live: 2 }, default: :draft

  validates :title, presence: true, length: { minimum: 3 }
  validates :body, presence: true

  before_validation :strip_title
  after_create_commit :notify_subscribers

  scope :recent, -> { order(created_at: :desc) }
  scope :by_author, ->(user) { where(author: user) }

  delegate :display_name, to: :author, prefix: true

  def to_param
    "#{id}-#{title.parameterize}"
  end

  def excerpt(length = 140)
    body.to_s.truncate(length)
  end

  private

  def strip_title
    self.title = title.to_s.strip
  end

  def notify_subscribers
    NotifySubscribersJob.perform_later(id)
  end
end

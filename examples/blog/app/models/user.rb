class User < ApplicationRecord
  has_secure_password
  has_many :posts, foreign_key: :author_id, dependent: :nullify, inverse_of: :author
  has_many :comments, dependent: :destroy

  validates :email, presence: true, uniqueness: { case_sensitive: false }
  validates :name, presence: true, length: { maximum: 80 }

  before_save :normalize_email

  def display_name
    name.presence || email
  end

  private

  def normalize_email
    self.email = email.to_s.strip.downcase
  end
end

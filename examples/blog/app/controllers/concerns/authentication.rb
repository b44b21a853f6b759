module Authentication
  extend ActiveSupport::Concern

  included do
    before_action :require_login
  end

  private

  def current_user
    @current_user ||= User.find_by(id: session[:user_id])
  end

  def require_login
    redirect_to new_session_path unless current_user
  end
end

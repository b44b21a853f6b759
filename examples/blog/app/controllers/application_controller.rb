class ApplicationController < ActionController::Base
  include Authentication

  allow_browser versions: :modern
  helper_method :current_user
end

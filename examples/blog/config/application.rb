require_relative "boot"

require "rails/all"

Bundler.require(*Rails.groups)

module Blog
  class Application < Rails::Application
    config.load_defaults 8.0
    config.autoload_lib(ignore: %w[assets tasks])
    config.time_zone = "Europe/Berlin"
    config.active_job.queue_adapter = :async
    config.x.posts_per_page = 20
  end
end

module Blog
  class Application < Rails::Application
    config.load_defaults 8.0
#   ^ !config.target
    config.time_zone = "Central Time (US & Canada)"
#   ^ config.target config.assignment
#                      ^ config.value
    config.x.cache_ttl ||= 60
#   ^ config.target
    Rails.application.config.active_job.queue_adapter = :inline
#   ^ config.target
    settings.x = 1
#   ^ !config.target
  end
end

Time::DATE_FORMATS[:short_date] = "%d %b"
# ^ time_format.owner time_format.assignment
#                  ^ time_format.name
#                                 ^ time_format.value

ActiveSupport::TimeFormats.register(:stamp, "%H:%M")
# ^ time_format.owner time_format.register
#                                   ^ time_format.name
#                                           ^ time_format.value

; Configuration read from config/application.rb, config/environments/*.rb and config/initializers/**.

; Config assignments ---------------------------------------------------------------------------------

; `config.time_zone = "UTC"`, `Rails.application.config.x.feature = true`, `config.x.y ||= 1`
((assignment
   left: (call) @config.target
   right: (_) @config.value) @config.assignment
 (#match? @config.target "^(Rails\\.application\\.)?config\\."))

((operator_assignment
   left: (call) @config.target
   right: (_) @config.value) @config.assignment
 (#match? @config.target "^(Rails\\.application\\.)?config\\."))

; Time formats ---------------------------------------------------------------------------------------

; `Time::DATE_FORMATS[:short] = "%d %b"`, `Date::DATE_FORMATS[:long] = ->(d) { … }`
((assignment
   left: (element_reference
     object: (scope_resolution) @time_format.owner
     .
     (_) @time_format.name)
   right: (_) @time_format.value) @time_format.assignment
 (#match? @time_format.owner "^(::)?(Time|Date|DateTime)::DATE_FORMATS$"))

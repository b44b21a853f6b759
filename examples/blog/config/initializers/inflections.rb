# Be sure to restart your server when you modify this file.

ActiveSupport::Inflector.inflections(:en) do |inflect|
  inflect.acronym "RSS"
  inflect.irregular "octopus", "octopuses"
end

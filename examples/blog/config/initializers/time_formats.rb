Time::DATE_FORMATS[:short_date] = "%d %b %Y"
Date::DATE_FORMATS[:month_year] = "%B %Y"

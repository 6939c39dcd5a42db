// Command weather is an example zut extension with a tool the model can
// call. The forecast is made up but deterministic: the same city always
// gets the same weather, and nothing touches the network.
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zut-go/zut/ext"
)

const schema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "description": "city name, for example Berlin"},
    "units": {"type": "string", "enum": ["metric", "imperial"], "description": "metric (default) or imperial"}
  },
  "required": ["city"]
}`

func main() {
	e := ext.New("weather", "1.0.0")
	e.Tool("weather", "Get the current weather for a city.", json.RawMessage(schema), func(args json.RawMessage) ext.ToolResult {
		var in struct {
			City  string `json:"city"`
			Units string `json:"units"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return ext.TextErrorResult("weather: the arguments must be an object like {\"city\":\"Berlin\"}: " + err.Error())
		}
		text, err := report(in.City, in.Units)
		if err != nil {
			return ext.TextErrorResult(err.Error())
		}
		return ext.TextResult(text)
	})
	e.Command("weather", "ask the model about the weather in a city (/weather city)", func(args string) ext.Response {
		if args == "" {
			return ext.ErrorResponse("/weather needs a city, for example: /weather Berlin")
		}
		return ext.Prompt("What is the weather in " + args + " right now? Use the weather tool and answer in one line.")
	})
	e.Run()
}

var conditions = []string{"sunny", "cloudy", "fog", "light rain", "showers", "windy", "snow"}

// report is the made-up weather of city: temperature and condition are
// derived from the letters of its name.
func report(city, units string) (string, error) {
	name := strings.TrimSpace(city)
	if name == "" {
		return "", fmt.Errorf("weather: city is empty; pass a city name such as \"Berlin\"")
	}
	var sum uint32
	for _, r := range strings.ToLower(name) {
		sum = sum*31 + uint32(r)
	}
	celsius := int(sum%36) - 5
	cond := conditions[(sum/36)%uint32(len(conditions))]
	switch units {
	case "", "metric":
		return fmt.Sprintf("%s: %d°C, %s", name, celsius, cond), nil
	case "imperial":
		return fmt.Sprintf("%s: %d°F, %s", name, celsius*9/5+32, cond), nil
	}
	return "", fmt.Errorf("weather: units %q is not metric or imperial", units)
}

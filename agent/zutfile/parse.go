package zutfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// MaxManifest bounds manifest.json.
const MaxManifest = 1 << 20

// Defaults of the permissions a manifest leaves out (or sets to null):
// the agent reads the workspace, writes nothing, asks before every
// command, reaches no host, and its children see DefaultEnv.
var (
	DefaultRead = []string{"${workspace}"}
	DefaultEnv  = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER"}
)

// Variables of the paths of a manifest.
const (
	VarWorkspace = "${workspace}"
	VarAgentData = "${agent_data}"
	VarHome      = "${home}"
)

// knownCapabilities are what a model may be asked for (model.capabilities).
var knownCapabilities = []string{"tools", "vision", "reasoning"}

// permissionAliases are other spellings of members of "permissions".
var permissionAliases = [...]struct{ alias, name string }{{"filesystem", "fs"}, {"network", "net"}}

// Parse reads manifest.json. It returns the manifest with the defaults
// filled in (DefaultRead, no write tree, bash "ask", no host,
// DefaultEnv), the warnings (one per unknown member, named by its JSON
// path, and one per value this zut ignores) and the first error: a
// version other than FormatVersion, a missing or invalid name, an
// unknown bash mode, an empty allowlist, a path that is not absolute, "~"
// or one starting with a variable, an unknown variable, a host or an
// environment name that is not one.
func Parse(data []byte) (*Manifest, []string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		return nil, nil, fmt.Errorf("manifest is not a JSON object: %v", jsonErr(data, err))
	}
	raw, ok := top["zutfile"]
	if !ok {
		return nil, nil, fmt.Errorf(`manifest has no "zutfile" member: add "zutfile": %d`, FormatVersion)
	}
	var version int
	if err := json.Unmarshal(raw, &version); err != nil || version != FormatVersion {
		return nil, nil, fmt.Errorf(`manifest "zutfile": %s is a format this zut does not read: it reads "zutfile": %d`, clip(string(raw)), FormatVersion)
	}
	orig := data
	if p, ok := top["permissions"]; ok {
		fixed, err := renameAliases(p)
		if err != nil {
			return nil, nil, err
		}
		if fixed != nil {
			top["permissions"] = fixed
			data, _ = json.Marshal(top) // raw messages that decoded above
		}
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("manifest: %v", jsonErr(data, err))
	}
	var generic any
	json.Unmarshal(orig, &generic) // it decoded above; warnings name the members as written
	warnings := unknownMembers(generic, reflect.TypeOf(m), "")
	ws, err := m.validate()
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, ws...)
	m.fillDefaults()
	return &m, warnings, nil
}

// renameAliases rewrites "filesystem" to "fs" and "network" to "net" in
// the permissions object, returning nil when it has neither; both
// spellings at once is an error.
func renameAliases(p json.RawMessage) (json.RawMessage, error) {
	var perms map[string]json.RawMessage
	if err := json.Unmarshal(p, &perms); err != nil || perms == nil {
		return nil, nil // the decode of the manifest says what is wrong
	}
	changed := false
	for _, pa := range permissionAliases {
		alias, name := pa.alias, pa.name
		v, ok := perms[alias]
		if !ok {
			continue
		}
		if _, both := perms[name]; both {
			return nil, fmt.Errorf("manifest permissions: both %q and %q are set; keep one", name, alias)
		}
		perms[name] = v
		delete(perms, alias)
		changed = true
	}
	if !changed {
		return nil, nil
	}
	out, _ := json.Marshal(perms)
	return out, nil
}

// unknownMembers lists the members of v that t has no field for, as
// JSON paths ("permissions.fs.exec"; "keywords[2]" for a list's item).
func unknownMembers(v any, t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return nil
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f.Type
		}
		if path == "permissions" {
			for _, pa := range permissionAliases {
				fields[pa.alias] = fields[pa.name]
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := joinPath(path, k)
			ft, ok := fields[k]
			if !ok {
				out = append(out, fmt.Sprintf("unknown member %s is ignored", p))
				continue
			}
			out = append(out, unknownMembers(v[k], ft, p)...)
		}
	case []any:
		if t.Kind() != reflect.Slice {
			return nil
		}
		for i, x := range v {
			out = append(out, unknownMembers(x, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// joinPath appends key to a JSON path: a.b, or a["odd key"].
func joinPath(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validate checks what Parse promises; the warnings are values it
// ignores.
func (m *Manifest) validate() ([]string, error) {
	var warnings []string
	if err := ValidName(m.Name); err != nil {
		return nil, err
	}
	if m.Requires.Zut != "" {
		if _, err := parseVersion(m.Requires.Zut); err != nil {
			return nil, fmt.Errorf("manifest requires.zut %q: %v; write a version such as \">=0.4.0\"", m.Requires.Zut, err)
		}
	}
	if m.Model.MinContext < 0 {
		return nil, fmt.Errorf("manifest model.min_context %d: a context window is a positive number of tokens", m.Model.MinContext)
	}
	for i, c := range m.Model.Capabilities {
		if !contains(knownCapabilities, c) {
			warnings = append(warnings, fmt.Sprintf("model.capabilities[%d] %q is not one zut knows (%s); it is ignored", i, c, strings.Join(knownCapabilities, ", ")))
		}
	}
	for i, b := range m.Requires.Binaries {
		if b == "" || strings.ContainsAny(b, "/\\\x00") {
			return nil, fmt.Errorf("manifest requires.binaries[%d] %q: name a program found on PATH, without a directory", i, b)
		}
	}
	p := &m.Permissions
	for _, f := range []struct {
		field string
		list  []string
	}{{"permissions.fs.read", p.FS.Read}, {"permissions.fs.write", p.FS.Write}} {
		for i, path := range f.list {
			if err := checkPath(path); err != nil {
				return nil, fmt.Errorf("manifest %s[%d] %q: %v", f.field, i, path, err)
			}
		}
	}
	switch p.Bash.Mode {
	case "", BashNone, BashAsk:
		if len(p.Bash.Allow) > 0 {
			mode := p.Bash.Mode
			if mode == "" {
				mode = BashAsk
			}
			warnings = append(warnings, fmt.Sprintf("permissions.bash.allow is ignored: the mode is %q, not %q", mode, BashAllowlist))
		}
	case BashAllowlist:
		if len(p.Bash.Allow) == 0 {
			return nil, fmt.Errorf(`manifest permissions.bash: mode %q with an empty allow list runs no command; list the commands (as in "git diff *") or use mode %q`, BashAllowlist, BashNone)
		}
		for i, pat := range p.Bash.Allow {
			if err := checkCommandPattern(pat); err != nil {
				return nil, fmt.Errorf("manifest permissions.bash.allow[%d] %q: %v", i, pat, err)
			}
		}
	default:
		return nil, fmt.Errorf("manifest permissions.bash: unknown mode %q; use %q, %q or %q", p.Bash.Mode, BashNone, BashAsk, BashAllowlist)
	}
	for i, h := range p.Net.Allow {
		if err := checkHost(h); err != nil {
			return nil, fmt.Errorf("manifest permissions.net.allow[%d] %q: %v", i, h, err)
		}
	}
	for i, e := range p.Env.Read {
		if !envName(e) {
			return nil, fmt.Errorf("manifest permissions.env.read[%d] %q: not an environment variable's name (letters, digits and _, not starting with a digit)", i, e)
		}
	}
	for i, e := range m.Extensions {
		if err := checkRelative(e); err != nil {
			return nil, fmt.Errorf("manifest extensions[%d] %q: %v", i, e, err)
		}
	}
	return warnings, nil
}

// fillDefaults sets the permissions left out.
func (m *Manifest) fillDefaults() {
	p := &m.Permissions
	if p.FS.Read == nil {
		p.FS.Read = append([]string(nil), DefaultRead...)
	}
	if p.FS.Write == nil {
		p.FS.Write = []string{}
	}
	if p.Bash.Mode == "" {
		p.Bash.Mode = BashAsk
	}
	if p.Bash.Mode != BashAllowlist {
		p.Bash.Allow = nil
	}
	if p.Net.Allow == nil {
		p.Net.Allow = []string{}
	}
	if p.Env.Read == nil {
		p.Env.Read = append([]string(nil), DefaultEnv...)
	}
}

// ValidName reports whether name may name an agent: 1 to 64 lower-case
// letters, digits, '-', '_' and '.', starting with a letter or a digit
// (it names the agent's directory under $ZUT_HOME/agents).
func ValidName(name string) error {
	if name == "" {
		return errors.New(`manifest has no "name": give the agent a name of lower-case letters, digits, '-', '_' and '.'`)
	}
	if len(name) > 64 {
		return fmt.Errorf("manifest name %q: longer than 64 characters", clip(name))
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if i > 0 && !ok {
			ok = c == '-' || c == '_' || c == '.'
		}
		if !ok {
			return fmt.Errorf("manifest name %q: use lower-case letters, digits, '-', '_' and '.', starting with a letter or a digit (it names a directory)", name)
		}
	}
	return nil
}

// checkPath checks a path of fs.read or fs.write.
func checkPath(p string) error {
	if p == "" {
		return errors.New("empty path; write ${workspace} for the directory zut runs in")
	}
	if strings.ContainsRune(p, 0) {
		return errors.New("the path holds a NUL byte")
	}
	rest := ""
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		rest = p[1:]
	case strings.HasPrefix(p, "/"):
		rest = p
	case strings.HasPrefix(p, "${"):
		end := strings.IndexByte(p, '}')
		if end < 0 {
			return errors.New("a variable without its closing '}'")
		}
		v := p[:end+1]
		if v != VarWorkspace && v != VarAgentData && v != VarHome {
			return fmt.Errorf("unknown variable %s; the variables are %s, %s and %s", v, VarWorkspace, VarAgentData, VarHome)
		}
		rest = p[end+1:]
		if rest != "" && rest[0] != '/' {
			return fmt.Errorf("a '/' must follow %s", v)
		}
	default:
		return fmt.Errorf("the path must be absolute, or start with ~, %s, %s or %s", VarWorkspace, VarAgentData, VarHome)
	}
	if i := strings.Index(rest, "${"); i >= 0 {
		v := rest[i:]
		if end := strings.IndexByte(v, '}'); end >= 0 {
			v = v[:end+1]
		}
		switch v {
		case VarWorkspace, VarAgentData, VarHome:
			return fmt.Errorf("%s may only start a path", v)
		}
		return fmt.Errorf("unknown variable %s; the variables are %s, %s and %s", v, VarWorkspace, VarAgentData, VarHome)
	}
	for _, el := range strings.Split(rest, "/") {
		if el == ".." {
			return errors.New("the path may not climb with ..; name the directory itself")
		}
	}
	return nil
}

// checkRelative checks a path inside the agent's tree.
func checkRelative(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || (len(p) > 1 && p[1] == ':') {
		return errors.New("the path must be relative to the agent's root, with '/' between names")
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return errors.New("the path may not leave the agent's root (..)")
		}
	}
	return nil
}

// checkCommandPattern checks a bash allowlist pattern: a command's words
// as in a permission rule bash(PATTERN), where '*' matches any run of
// characters.
func checkCommandPattern(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New(`empty pattern; write the command, as in "git diff *"`)
	}
	if len(p) > 4096 {
		return errors.New("a pattern longer than 4096 bytes")
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return errors.New("a control character (a new line?) in the pattern; give each command its own pattern")
		}
	}
	if strings.Count(p, "(") != strings.Count(p, ")") {
		return errors.New("unbalanced parentheses")
	}
	return nil
}

// checkHost checks an entry of net.allow: a host name, "*." and a
// domain for its subdomains, or an IP address; an optional ":port".
func checkHost(h string) error {
	if h == "" {
		return errors.New("empty host")
	}
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/?#@ ") {
		return errors.New(`name the host alone, as in "api.github.com", not a URL`)
	}
	host := h
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return errors.New("an IPv6 address without its closing ']'")
		}
		if rest := host[end+1:]; rest != "" && (rest[0] != ':' || !validPort(rest[1:])) {
			return errors.New("a port must be a number from 1 to 65535 after ':'")
		}
		if end == 1 {
			return errors.New("not an IPv6 address")
		}
		for _, c := range host[1:end] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.') {
				return errors.New("not an IPv6 address")
			}
		}
		return nil
	}
	if name, port, ok := strings.Cut(host, ":"); ok {
		if !validPort(port) {
			return errors.New("a port must be a number from 1 to 65535 after ':'")
		}
		host = name
	}
	host = strings.TrimPrefix(host, "*.")
	if host == "" || strings.Contains(host, "*") {
		return errors.New(`'*' may only start a host, as in "*.example.org"; list the hosts the agent needs`)
	}
	if len(host) > 253 {
		return errors.New("a host name longer than 253 characters")
	}
	for _, label := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("not a host name")
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return errors.New("not a host name (letters, digits, '-' and '.')")
			}
		}
	}
	return nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && p[0] >= '1' && p[0] <= '9'
}

func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonErr says where in data a JSON error is: "line 3 column 7: ...".
func jsonErr(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Errorf("%s: a JSON %s where %s is wanted", te.Field, te.Value, typeName(te.Type))
		}
		off = te.Offset
	}
	if off < 1 || off > int64(len(data)) {
		return err
	}
	off-- // the offset is past the byte at fault
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Errorf("line %d column %d: %v", line, col, err)
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

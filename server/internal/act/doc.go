// Package act is the one place icm starts a process or opens an outbound
// connection. Every such call takes a Permit and the Action it is for,
// and asks the permit first: a refused action never starts and never
// connects, and a nil permit refuses everything, so a new call site
// cannot forget to ask. The session's permit is the workspace's trust
// decision (package trust); icm's own work whose target no workspace
// names (the code sandbox, the page reader under its address policy)
// uses Own. TestOnlyActStartsOrConnects fails on any process or
// connection made elsewhere.
package act

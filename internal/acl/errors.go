package acl

// ruleError is why a rule was refused; its text is Valkey 8.0.1's
// ACLSetUserStringError for the errno ACLSetUser sets.
type ruleError int

const (
	errSyntax          ruleError = iota + 1 // EINVAL
	errUnknownName                          // ENOENT
	errKeyAfterAll                          // EEXIST
	errChannelAfterAll                      // EISDIR
	errNoSuchPassword                       // ENODEV
	errBadHash                              // EBADMSG
	errFirstArgOfSub                        // ECHILD
	errDuplicateUser                        // EALREADY
)

func (e ruleError) Error() string {
	switch e {
	case errUnknownName:
		return "Unknown command or category name in ACL"
	case errSyntax:
		return "Syntax error"
	case errKeyAfterAll:
		return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	case errChannelAfterAll:
		return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	case errNoSuchPassword:
		return "The password you are trying to remove from the user does not exist"
	case errBadHash:
		return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	case errDuplicateUser:
		return "Duplicate user found. A user can only be defined once in config files"
	case errFirstArgOfSub:
		return "Allowing first-arg of a subcommand is not supported"
	}
	return "Wrong format"
}

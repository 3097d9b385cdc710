package scenarios

// VCStragglerScript exposes the vc-straggler script with its delay as a
// parameter to the external tests.
var VCStragglerScript = vcStragglerScript

package logscan

// classifyFrameworks handles the messages of JAX, upstream TensorFlow and PyTorch/XLA.
func (s *Scanner) classifyFrameworks(msg string, h header, lineNo int) {}

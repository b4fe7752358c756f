package stagetest

// MaxOutputText bounds the text of one output kept in a result.
const MaxOutputText = 64 << 10

// Command tool is not in the record.
package main

func main() {}

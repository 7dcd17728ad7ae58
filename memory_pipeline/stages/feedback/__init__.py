"""Echo/fizzle (seed 003): did the agent use the memories it was given?"""

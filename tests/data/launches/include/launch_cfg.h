// Included through -I: the number of rows a block handles.
#define ROWS 4

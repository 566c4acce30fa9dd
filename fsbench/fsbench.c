/* The fsbench program. */
int fsb_main(int argc, char **argv);

int main(int argc, char **argv)
{
	return fsb_main(argc, argv);
}

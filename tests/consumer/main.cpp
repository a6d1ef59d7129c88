// A user's program built against the installed package: reads a transcript, writes it back
// in canonical form, and checks that the frames survived.
#include <msptk/transcript/reader.hpp>
#include <msptk/transcript/writer.hpp>

#include <cstdio>
#include <filesystem>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer TRANSCRIPT OUT\n");
    return 2;
  }
  auto frames = msptk::read_transcript(argv[1]);
  if (!frames) {
    std::fprintf(stderr, "%s\n", frames.error().render().c_str());
    return 3;
  }
  auto writer = msptk::TranscriptWriter::create(argv[2]);
  if (!writer) return 3;
  for (const auto& frame : *frames)
    if (!writer->append(frame)) return 3;
  auto again = msptk::read_transcript(argv[2]);
  if (!again || again->size() != frames->size()) return 1;
  for (std::size_t i = 0; i < frames->size(); ++i)
    if ((*again)[i].raw != (*frames)[i].raw) return 1;
  std::printf("consumer: %zu frames round-tripped\n", frames->size());
  return 0;
}
